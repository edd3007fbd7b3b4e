/**
 * Meta's page `leadgen` webhook notifications (CONTRACT.md section 8), read into one queued change per
 * lead. Ids are read as the digits Meta wrote: a leadgen id may be sent as a JSON number larger than
 * 2^53, which JSON.parse alone would round.
 */
import { boundIdentifier, MalformedJsonBodyError, MAX_IDENTIFIER_LENGTH } from '../domain/errors.ts';

/** One leadgen change, as queued for the worker. */
export interface LeadgenChange {
  readonly pageId: string;
  readonly leadgenId: string;
  readonly formId?: string;
  readonly adId?: string;
  /** Meta's `created_time` of the lead (Unix seconds), when given. */
  readonly createdTime?: number;
  /** When Meta sent the notification (the entry's `time`), ISO-8601. */
  readonly notifiedAt?: string;
  /** The webhook request that brought it, for tracing and the rejection record. */
  readonly requestId: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses JSON keeping every number's source text, so ids keep all their digits. */
export const parseNotification = (rawBody: Buffer): unknown => {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(rawBody), (_key, value, context?: { source?: string }) =>
      typeof value === 'number' ? new SourceNumber(context?.source ?? String(value)) : value,
    );
  } catch {
    throw new MalformedJsonBodyError();
  }
};

class SourceNumber {
  readonly source: string;
  constructor(source: string) {
    this.source = source;
  }
}

const ID_TEXT = new RegExp(`^[\\w.-]{1,${MAX_IDENTIFIER_LENGTH}}$`);

/**
 * An id as text: a string, or a whole number as its digits. Longer than 200 characters, the
 * notification is refused (IdentifierTooLongError, 400; CONTRACT.md section 14) and nothing queued.
 */
const idOf = (value: unknown, member: string): string | undefined => {
  const text = typeof value === 'string' ? value.trim() : value instanceof SourceNumber ? value.source : undefined;
  boundIdentifier(member, text);
  return text !== undefined && ID_TEXT.test(text) && (typeof value === 'string' || /^\d+$/.test(text)) ? text : undefined;
};

const secondsOf = (value: unknown): number | undefined => {
  const text = value instanceof SourceNumber ? value.source : typeof value === 'string' ? value : undefined;
  const seconds = text === undefined ? NaN : Number(text);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
};

/**
 * The leadgen changes of a notification. Anything that is not a page notification, and changes of
 * other fields, yield nothing (they are acknowledged and ignored); a leadgen change without a leadgen
 * id or page id cannot be read from Graph either, and is skipped (the caller logs how many).
 */
export const leadgenChangesOf = (notification: unknown, requestId: string): { changes: LeadgenChange[]; skipped: number } => {
  const changes: LeadgenChange[] = [];
  let skipped = 0;
  if (!isObject(notification) || notification.object !== 'page' || !Array.isArray(notification.entry)) return { changes, skipped };
  for (const entry of notification.entry) {
    if (!isObject(entry) || !Array.isArray(entry.changes)) continue;
    const entryTime = secondsOf(entry.time);
    for (const change of entry.changes) {
      if (!isObject(change) || change.field !== 'leadgen') continue;
      const value = isObject(change.value) ? change.value : {};
      const leadgenId = idOf(value.leadgen_id, 'leadgen_id');
      const pageId = idOf(value.page_id, 'page_id') ?? idOf(entry.id, 'id');
      if (!leadgenId || !pageId) {
        skipped += 1;
        continue;
      }
      const formId = idOf(value.form_id, 'form_id');
      const adId = idOf(value.ad_id, 'ad_id');
      const createdTime = secondsOf(value.created_time);
      changes.push({
        pageId,
        leadgenId,
        ...(formId && { formId }),
        ...(adId && { adId }),
        ...(createdTime && { createdTime }),
        // Meta sends seconds; some samples carry milliseconds.
        ...(entryTime && { notifiedAt: new Date(entryTime > 1e12 ? entryTime : entryTime * 1000).toISOString() }),
        requestId,
      });
    }
  }
  return { changes, skipped };
};

/** Reads a queued change back; undefined when the message is not one (it is then dropped, and logged). */
export const leadgenChangeFromMessage = (body: string): LeadgenChange | undefined => {
  try {
    const value = JSON.parse(body) as Partial<LeadgenChange>;
    if (typeof value.pageId !== 'string' || typeof value.leadgenId !== 'string' || typeof value.requestId !== 'string') return undefined;
    return value as LeadgenChange;
  } catch {
    return undefined;
  }
};
