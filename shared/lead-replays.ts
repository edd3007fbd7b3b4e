/**
 * Replays of the event archive to the CRM (CONTRACT.md section 14: erased leads are never delivered
 * again; docs/decisions/0009-replays-skip-erased-leads.md). A replay takes archived events as they
 * were published, and an archived `Lead Created` carries the person's details whole: the replay path
 * asks the Leads table about each before it goes out.
 *
 * - `Lead Created` of a lead whose item is gone (erased since): dropped.
 * - `Lead Created` of a lead that lost fields to an erasure since (another person's number named only
 *   as its `alternate_number`): delivered without those fields, as the lead is now.
 * - `Lead Created` of a lead still stored whole: delivered as archived.
 * - `Lead Erased`: always delivered (the CRM erases its copy again; it holds no person's data).
 * - `Source Silent` and `Source Resumed` (section 16): always delivered (a channel's times and counts, no person's data).
 * - Anything else (not JSON, another type, a detail without the lead's ids): dropped and logged by
 *   message id. Nothing is lost by dropping it: the archive still holds what was published.
 * A lookup the table cannot answer throws: the whole batch goes back to the queue and is checked again
 * (nothing is delivered unchecked).
 */
import type { LogSink } from './log.ts';
import { leadCreatedEvent, leadErasedEvent } from './dynamodb/lead-stream.ts';
import { sourceResumedEvent, sourceSilentEvent } from './domain/source-watch.ts';
import type { StoredLeads } from './dynamodb/stored-leads.ts';

/** What the CRM endpoint receives, live or replayed: `{id, source, detail-type, time, detail}` (section 9). */
export interface DeliveredEvent {
  readonly id?: unknown;
  readonly source?: unknown;
  readonly 'detail-type'?: unknown;
  readonly time?: unknown;
  readonly detail?: unknown;
}

/** A queued replayed event, as EventBridge Pipes hands an SQS message to its enrichment (only what is read here). */
export interface QueuedReplay {
  readonly messageId?: string;
  readonly body?: string;
}

/** Why a queued replayed event was not delivered. */
export type Dropped = 'erased' | 'malformed';

export interface ReplayVerdict {
  readonly deliver?: DeliveredEvent;
  readonly dropped?: Dropped;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

const parse = (body: string | undefined): DeliveredEvent | undefined => {
  if (body === undefined) return undefined;
  try {
    const event: unknown = JSON.parse(body);
    return isObject(event) ? event : undefined;
  } catch {
    return undefined;
  }
};

/** The verdict on one queued replayed event: deliver it (as the lead is now), or drop it. */
export const replayVerdict = async (message: QueuedReplay, leads: StoredLeads): Promise<ReplayVerdict> => {
  const event = parse(isObject(message) && typeof message.body === 'string' ? message.body : undefined);
  if (!event || event.source !== leadCreatedEvent.source || !isObject(event.detail)) return { dropped: 'malformed' };
  if (event['detail-type'] === leadErasedEvent.detailType) return { deliver: event };
  if (event['detail-type'] === sourceSilentEvent.detailType || event['detail-type'] === sourceResumedEvent.detailType) return { deliver: event };
  if (event['detail-type'] !== leadCreatedEvent.detailType) return { dropped: 'malformed' };
  const { account_id: accountId, lead } = event.detail;
  if (!isId(accountId) || !isObject(lead) || !isId(lead.projectID) || !isId(lead.id)) return { dropped: 'malformed' };
  const stored = await leads.find(accountId, lead.projectID, lead.id);
  if (!stored) return { dropped: 'erased' };
  if (stored.erasedFields.length === 0) return { deliver: event };
  const now = Object.fromEntries(Object.entries(lead).filter(([name]) => !stored.erasedFields.includes(name)));
  return { deliver: { ...event, detail: { ...event.detail, lead: now } } };
};

/**
 * The replay path's enrichment: of a batch of queued replayed events, those to deliver, in order
 * (Pipes invokes the target once per returned event; an empty array invokes nothing). One GetItem per
 * `Lead Created`, all at once. Logs counts and the message ids of malformed messages, never a lead.
 */
export const replayFilterHandler = (leads: StoredLeads, log: LogSink) => async (messages: readonly QueuedReplay[]): Promise<DeliveredEvent[]> => {
  const batch = Array.isArray(messages) ? messages : [];
  const verdicts = await Promise.all(batch.map((message) => replayVerdict(message, leads)));
  const malformed = batch.filter((_, i) => verdicts[i]!.dropped === 'malformed').map((message) => (isObject(message) && isId(message.messageId) ? message.messageId : 'unknown'));
  const delivered = verdicts.flatMap((verdict) => (verdict.deliver ? [verdict.deliver] : []));
  log({
    level: malformed.length > 0 ? 'error' : 'info',
    message: 'replayed events filtered',
    delivered: delivered.length,
    erased: verdicts.filter((verdict) => verdict.dropped === 'erased').length,
    malformed: malformed.length,
    ...(malformed.length > 0 && { malformedMessageIds: malformed }),
  });
  return delivered;
};
