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
 * - `Portal Failing` and `Portal Recovered` (section 17): always delivered (a login's state, no person's data).
 * - Anything else (not JSON, another type, a detail without the lead's ids): dropped and logged by
 *   message id. Nothing is lost by dropping it: the archive still holds what was published.
 * A lookup the table cannot answer throws: the whole batch goes back to the queue and is checked again
 * (nothing is delivered unchecked).
 *
 * A check and the post that follows it are not one step: an erasure can answer between them, and
 * the CRM may then hold the lead whole (its live `Lead Erased` can even arrive before the replayed
 * `Lead Created`). So each `Lead Created` passed on leaves a re-check on the replay queue, due after
 * any post of this receive has ended; the re-check asks the table again and, if an erasure came in
 * between, delivers a `Lead Erased` (docs/decisions/0010-nothing-waits-unerased.md). The same queue
 * holds each live `Lead Erased` until the live delivery's retries have ended, then delivers it again:
 * the CRM's last word on an erased lead is its erasure, whatever order an outage left the rest in.
 */
import { randomUUID } from 'node:crypto';
import type { LogSink } from './log.ts';
import { leadCreatedEvent, leadErasedEvent } from './dynamodb/lead-stream.ts';
import { sourceResumedEvent, sourceSilentEvent } from './domain/source-watch.ts';
import { portalFailingEvent, portalRecoveredEvent } from './pulled/wire-names.ts';
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
export type Dropped = 'erased' | 'malformed' | 'unchanged' | 'held';

export interface ReplayVerdict {
  readonly deliver?: DeliveredEvent;
  readonly dropped?: Dropped;
}

/**
 * The replay queue, as the filter writes to it: a message it receives again after `delaySeconds`
 * (SQS's message timer: at most 900). Throws when it could not be queued.
 */
export interface ReplayQueue {
  later(body: string, delaySeconds: number): Promise<void>;
}

/** SQS's longest message timer. */
const MAX_DELAY_SECONDS = 900;

/**
 * How long after a `Lead Created` is passed on its lead is checked again: SQS's longest timer. A pipe
 * execution holds one event, so its post follows the filter's answer within seconds (the API
 * destination gives up after 5 s); the replay queue's visibility timeout, 5 minutes, is a third of this.
 */
export const RECHECK_DELAY_SECONDS = MAX_DELAY_SECONDS;

/**
 * How long after it was published a live `Lead Erased` is delivered again: the live delivery retries
 * an event for 24 hours (lib/constructs/lead-events.ts DELIVERY_MAX_EVENT_AGE), and the Lead Created
 * pipe may publish a lead's `Lead Created` up to 6 hours after it was stored (its records' maximum
 * age), so by then no `Lead Created` of an erased lead can still be on its way. A CDK test holds this
 * to the stack's values.
 */
export const ERASURE_REPEAT_AFTER_HOURS = 30;

/** A re-check the filter left on the queue: ids and field names only, never the person's data. */
export interface Recheck {
  readonly account_id: string;
  readonly project_id: string;
  readonly lead_id: string;
  /** The fields already missing from what was passed on (taken by an earlier erasure). */
  readonly erased_fields: readonly string[];
}

export interface ReplayFilterOptions {
  readonly leads: StoredLeads;
  readonly queue: ReplayQueue;
  readonly log: LogSink;
  /** @default the clock */
  readonly now?: () => Date;
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

const eventTime = (now: Date) => now.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A `Lead Erased` the filter makes itself: a new event id, so a receiver that deduplicates by event id still takes it. */
const leadErased = (detail: Record<string, unknown>, now: Date): DeliveredEvent => ({
  id: randomUUID(),
  source: leadErasedEvent.source,
  'detail-type': leadErasedEvent.detailType,
  time: eventTime(now),
  detail,
});

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * A `Lead Created` (replayed, or `npm start`'s about to be sent) as its lead is now: nothing to deliver
 * when the lead is gone, and without the fields an erasure took since; with what the table said, for
 * the re-check. One strongly consistent GetItem.
 */
export const currentLeadCreated = async (event: DeliveredEvent, leads: StoredLeads): Promise<{ deliver?: DeliveredEvent; recheck?: Recheck } | 'malformed'> => {
  if (event.source !== leadCreatedEvent.source || event['detail-type'] !== leadCreatedEvent.detailType || !isObject(event.detail)) return 'malformed';
  const { account_id: accountId, lead } = event.detail;
  if (!isId(accountId) || !isObject(lead) || !isId(lead.projectID) || !isId(lead.id)) return 'malformed';
  const stored = await leads.find(accountId, lead.projectID, lead.id);
  if (!stored) return {};
  const recheck = { account_id: accountId, project_id: lead.projectID, lead_id: lead.id, erased_fields: stored.erasedFields };
  if (stored.erasedFields.length === 0) return { deliver: event, recheck };
  const now = Object.fromEntries(Object.entries(lead).filter(([name]) => !stored.erasedFields.includes(name)));
  return { deliver: { ...event, detail: { ...event.detail, lead: now } }, recheck };
};

/** A re-check come due: a `Lead Erased` when an erasure took the lead, or more of its fields, since it was passed on. */
const recheckVerdict = async (recheck: Record<string, unknown>, leads: StoredLeads, now: Date): Promise<ReplayVerdict> => {
  const { account_id: accountId, project_id: projectId, lead_id: leadId, erased_fields: before } = recheck;
  if (!isId(accountId) || !isId(projectId) || !isId(leadId) || !isStringList(before)) return { dropped: 'malformed' };
  const stored = await leads.find(accountId, projectId, leadId);
  if (!stored) return { deliver: leadErased({ account_id: accountId, lead_id: leadId, reason: (await leads.erasureReason?.(accountId, leadId)) ?? 'request' }, now) };
  const lost = stored.erasedFields.filter((name) => !before.includes(name));
  if (lost.length === 0) return { dropped: 'unchanged' };
  return { deliver: leadErased({ account_id: accountId, lead_id: leadId, fields: lost, reason: 'request' }, now) };
};

/**
 * A live `Lead Erased` queued to be delivered again (lib/constructs/lead-replays.ts, the erasure
 * repeats rule): before it is due, sent back to the queue for as long as a message timer allows; once
 * due, delivered as a new event.
 */
const repeatVerdict = async (repeat: Record<string, unknown>, queue: ReplayQueue, now: Date): Promise<ReplayVerdict> => {
  const published = typeof repeat.time === 'string' ? Date.parse(repeat.time) : Number.NaN;
  const { detail } = repeat;
  if (repeat.source !== leadErasedEvent.source || repeat['detail-type'] !== leadErasedEvent.detailType || !isObject(detail) || !isId(detail.account_id) || !isId(detail.lead_id) || Number.isNaN(published)) {
    return { dropped: 'malformed' };
  }
  const waitSeconds = Math.ceil((published + ERASURE_REPEAT_AFTER_HOURS * 3_600_000 - now.getTime()) / 1000);
  if (waitSeconds > 0) {
    await queue.later(JSON.stringify({ repeat }), Math.min(waitSeconds, MAX_DELAY_SECONDS));
    return { dropped: 'held' };
  }
  return { deliver: leadErased(detail, now) };
};

/** The verdict on one queued replayed event: deliver it (as the lead is now), or drop it. */
export const replayVerdict = async (message: QueuedReplay, { leads, queue, now = () => new Date() }: Omit<ReplayFilterOptions, 'log'>): Promise<ReplayVerdict> => {
  const queued = parse(isObject(message) && typeof message.body === 'string' ? message.body : undefined);
  if (!queued) return { dropped: 'malformed' };
  const recheck = (queued as { recheck?: unknown }).recheck;
  if (isObject(recheck)) return recheckVerdict(recheck, leads, now());
  const repeat = (queued as { repeat?: unknown }).repeat;
  if (isObject(repeat)) return repeatVerdict(repeat, queue, now());
  const event = queued;
  if (event.source !== leadCreatedEvent.source || !isObject(event.detail)) return { dropped: 'malformed' };
  if (event['detail-type'] === leadErasedEvent.detailType) return { deliver: event };
  // A channel's silence and its end hold no lead and no person: replayed as they were.
  if (event['detail-type'] === sourceSilentEvent.detailType || event['detail-type'] === sourceResumedEvent.detailType) return { deliver: event };
  // A portal login's failing and recovery (section 17): a login's state, no person's data.
  if (event['detail-type'] === portalFailingEvent.detailType || event['detail-type'] === portalRecoveredEvent.detailType) return { deliver: event };
  if (event['detail-type'] !== leadCreatedEvent.detailType) return { dropped: 'malformed' };
  const current = await currentLeadCreated(event, leads);
  if (current === 'malformed') return { dropped: 'malformed' };
  if (!current.deliver) return { dropped: 'erased' };
  // Queued before the event is returned: once the pipe may post it, its re-check is already waiting.
  await queue.later(JSON.stringify({ recheck: current.recheck }), RECHECK_DELAY_SECONDS);
  return { deliver: current.deliver };
};

/**
 * The replay path's enrichment: of a batch of queued replayed events, those to deliver, in order
 * (Pipes invokes the target once per returned event; an empty array invokes nothing). One GetItem per
 * `Lead Created` and per re-check, all at once. Logs counts and the message ids of malformed
 * messages, never a lead.
 */
export const replayFilterHandler = (options: ReplayFilterOptions) => async (messages: readonly QueuedReplay[]): Promise<DeliveredEvent[]> => {
  const batch = Array.isArray(messages) ? messages : [];
  const verdicts = await Promise.all(batch.map((message) => replayVerdict(message, options)));
  const malformed = batch.filter((_, i) => verdicts[i]!.dropped === 'malformed').map((message) => (isObject(message) && isId(message.messageId) ? message.messageId : 'unknown'));
  const delivered = verdicts.flatMap((verdict) => (verdict.deliver ? [verdict.deliver] : []));
  const count = (dropped: Dropped) => verdicts.filter((verdict) => verdict.dropped === dropped).length;
  options.log({
    level: malformed.length > 0 ? 'error' : 'info',
    message: 'replayed events filtered',
    delivered: delivered.length,
    erased: count('erased'),
    held: count('held'),
    malformed: malformed.length,
    ...(malformed.length > 0 && { malformedMessageIds: malformed }),
  });
  return delivered;
};
