/**
 * Leads out, locally (CONTRACT.md sections 9 and 12): `npm start` reads DynamoDB Local's own stream of the
 * Leads table, as the deployed pipes read the real one, turns each record into a `Lead Created` or
 * `Lead Erased` event with the same code the pipes' enrichment function runs (shared/dynamodb/lead-stream.ts), and posts each
 * event to LEAD_EVENTS_WEBHOOK_URL the way the deployed API destination does: JSON
 * `{"id", "source", "detail-type", "time", "detail"}`, retrying 429, 5xx, refused connections and
 * answers slower than 5 s with back-off, until a 2xx.
 *
 * Here the service posts itself, so it checks at delivery (docs/decisions/0010-nothing-waits-unerased.md):
 * each attempt of a `Lead Created` asks the Leads table first and sends the lead as it is now (not at
 * all once erased; without the fields an erasure took), and a lead's `Lead Erased` waits until its
 * `Lead Created` still being delivered has ended, so the CRM never ends holding an erased lead.
 */
import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { erasureReasonReader } from '../../shared/dynamodb/erasure-reasons.ts';
import { leadCreatedEvent, leadErasedEvent, leadEventOf, withErasureReason, type LeadCreatedDetail, type LeadErasedDetail, type LeadEvent, type LeadStreamRecord } from '../../shared/dynamodb/lead-stream.ts';
import type { StoredLeads } from '../../shared/dynamodb/stored-leads.ts';
import { currentLeadCreated } from '../../shared/lead-replays.ts';
import type { SourceResumedDetail, SourceSilentDetail, SourceWatchEvent } from '../../shared/domain/source-watch.ts';

/** An event as the CRM's endpoint receives it, deployed or local. */
export interface DeliveredEvent {
  readonly id: string;
  readonly source: string;
  readonly 'detail-type': string;
  /** EventBridge's form: ISO-8601 UTC to the second. */
  readonly time: string;
  readonly detail: LeadCreatedDetail | LeadErasedDetail | SourceSilentDetail | SourceResumedDetail;
}

/** A delivered Lead Created event. */
export type LeadCreatedDelivery = DeliveredEvent & { readonly detail: LeadCreatedDetail };

/** The event as delivered; a bare detail is a Lead Created one. */
export const eventEnvelope = (event: LeadEvent | SourceWatchEvent | LeadCreatedDetail, now = new Date()): DeliveredEvent => {
  const { detailType, detail } = 'detailType' in event ? event : { detailType: leadCreatedEvent.detailType, detail: event };
  return {
    id: randomUUID(),
    source: leadCreatedEvent.source,
    'detail-type': detailType,
    time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    detail,
  };
};

/** What an event is about, for the terminal's delivery lines: its lead, or its channel (a source gone quiet). */
const leadIdOf = (event: DeliveredEvent) => {
  const detail = event.detail;
  if ('lead' in detail) return detail.lead.id;
  if ('lead_id' in detail) return detail.lead_id;
  const { source, sub_source, connection_id } = detail.channel as { source: string; sub_source: string | null; connection_id?: string };
  return `${detail.account_id}/${[source, sub_source, connection_id].filter((part) => part !== null && part !== undefined).join('/')}`;
};

export interface LeadStreamReaderOptions {
  /** The DynamoDB client of the local run: its endpoint and credentials serve the stream client too. */
  readonly dynamodb: DynamoDBClient;
  readonly endpoint: string;
  readonly leadsTable: string;
  readonly onEvent: (event: DeliveredEvent) => void;
  /**
   * Every page of new records, before the next is read (the quiet-source watch counts them, as the
   * deployed watch's function counts the stream's batches); a throw is reported to `onError`.
   */
  readonly onRecords?: (records: readonly LeadStreamRecord[]) => Promise<void>;
  /** Pause between reads of the stream when it had nothing new. @default 200 ms */
  readonly pollIntervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

export interface LeadStreamReader {
  /** Stops reading; resolves once the reader has stopped. */
  stop(): Promise<void>;
}

/**
 * Starts reading the stream after its latest record (leads stored before `npm start` are not sent
 * again); resolves once every shard has been read to its end, so a lead stored after that is published.
 */
export const startLeadStreamReader = async ({ dynamodb, endpoint, leadsTable, onEvent, onRecords, pollIntervalMs = 200, onError }: LeadStreamReaderOptions): Promise<LeadStreamReader> => {
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: leadsTable }));
  // A lead removed whole: why (CONTRACT.md section 18), read as the deployed enrichment reads it.
  const reasonOf = erasureReasonReader(createDocumentClient({ client: dynamodb }), leadsTable);
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`the table ${leadsTable} has no stream (streamNewImages in shared/dynamodb/tables.ts)`);
  const streams = new DynamoDBStreamsClient({ endpoint, region: await dynamodb.config.region(), credentials: await dynamodb.config.credentials() });
  // The SDK's logger middleware walks every GetRecords page (whole lead images) to hand it to a no-op
  // logger: a third of the reader's CPU per page, paid by npm start for every lead (issue 36).
  streams.middlewareStack.remove('loggerMiddleware');

  /**
   * Each open shard's iterator and the last record read from it. DynamoDB Local refuses an iterator
   * taken on an empty shard once its first record arrives ("read past the oldest stream record"):
   * such an iterator is taken again, after the last record read, or from the shard's start when none
   * was read (everything in it is then new).
   */
  const shards = new Map<string, { iterator?: string; lastSequence?: string }>();
  const iteratorOf = async (shardId: string, lastSequence: string | undefined) =>
    (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(lastSequence ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: lastSequence } : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      )
    ).ShardIterator;

  /** Reads a shard once; hands each record on unless `skip` (records stored before the start). */
  const read = async (shardId: string, skip: boolean): Promise<number> => {
    const shard = shards.get(shardId)!;
    shard.iterator ??= await iteratorOf(shardId, shard.lastSequence);
    if (!shard.iterator) return 0;
    let page;
    try {
      page = await streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: 100 }));
    } catch (error) {
      const name = (error as Error).name;
      if (name !== 'TrimmedDataAccessException' && name !== 'ExpiredIteratorException') throw error;
      delete shard.iterator;
      return 0;
    }
    const { Records = [], NextShardIterator } = page;
    for (const record of Records) {
      shard.lastSequence = record.dynamodb?.SequenceNumber ?? shard.lastSequence;
      const event = skip ? undefined : await withErasureReason(leadEventOf(record as LeadStreamRecord), reasonOf);
      if (event) onEvent(eventEnvelope(event));
    }
    if (!skip && onRecords && Records.length > 0) {
      try {
        await onRecords(Records as LeadStreamRecord[]);
      } catch (error) {
        onError?.(error);
      }
    }
    if (NextShardIterator) shard.iterator = NextShardIterator;
    else shards.delete(shardId); // closed, and read to its end
    return Records.length;
  };

  /** Shards not seen yet: at the start, read to their end without publishing; later, from their start. */
  const discover = async (starting: boolean) => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || seen.has(shard.ShardId)) continue;
      seen.add(shard.ShardId);
      shards.set(shard.ShardId, {});
      if (starting) while ((await read(shard.ShardId, true)) > 0);
    }
  };
  const seen = new Set<string>();
  await discover(true);

  let running = true;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    let lastDiscovery = Date.now();
    while (running) {
      let received = 0;
      try {
        for (const shardId of [...shards.keys()]) received += await read(shardId, false);
        if (Date.now() - lastDiscovery > 1_000 || shards.size === 0) {
          lastDiscovery = Date.now();
          await discover(false);
        }
      } catch (error) {
        if (running) onError?.(error);
      }
      if (received === 0 && running) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, pollIntervalMs).unref();
        });
      }
    }
  })();

  return {
    stop: async () => {
      running = false;
      wake?.();
      await loop;
      streams.destroy();
    },
  };
};

export interface WebhookOptions {
  readonly url: string;
  /** Sent as the Authorization header when set; never logged. */
  readonly authorization?: string;
  /** An answer slower than this is given up on and retried. @default 5 s */
  readonly timeoutMs?: number;
  /** First wait before a retry; it doubles after each failure, up to `maxDelayMs`. @default 1 s */
  readonly firstDelayMs?: number;
  /** @default 30 s */
  readonly maxDelayMs?: number;
  /** How long an event is retried before it is given up (the deployed delivery: 24 hours). @default 24 h */
  readonly giveUpAfterMs?: number;
  /** One line per outcome, for the terminal. */
  readonly log?: (line: string) => void;
  /**
   * The event as it may go out now, asked before each attempt (`asTheLeadIsNow`): undefined when it may
   * not go out at all. Throws when it cannot tell: the attempt is retried. @default the event as it is
   */
  readonly current?: (event: DeliveredEvent) => Promise<DeliveredEvent | undefined>;
}

export type DeliveryOutcome = 'delivered' | 'refused' | 'given_up' | 'stopped' | 'erased';

/**
 * A `Lead Created` as the Leads table holds its lead now (the replay filter's own check,
 * shared/lead-replays.ts): undefined when the lead was erased, without the fields an erasure took
 * since. Any other event goes out as it is.
 */
export const asTheLeadIsNow =
  (leads: StoredLeads) =>
  async (event: DeliveredEvent): Promise<DeliveredEvent | undefined> => {
    if (event['detail-type'] !== leadCreatedEvent.detailType) return event;
    const current = await currentLeadCreated(event, leads);
    // The reader makes every event itself: one it could not read back is sent as made.
    if (current === 'malformed') return event;
    return current.deliver as DeliveredEvent | undefined;
  };

export interface WebhookSender {
  deliver(event: DeliveredEvent): Promise<DeliveryOutcome>;
  /** Stops retrying: pending deliveries end with `stopped`. */
  stop(): void;
}

/** What is worth retrying: the receiver is busy, broken, slow or not there yet. */
const retryable = (status: number) => status === 429 || status >= 500;

export const webhookSender = ({
  url,
  authorization,
  timeoutMs = 5_000,
  firstDelayMs = 1_000,
  maxDelayMs = 30_000,
  giveUpAfterMs = 24 * 60 * 60 * 1000,
  log = () => undefined,
  current = async (event) => event,
}: WebhookOptions): WebhookSender => {
  const stopping = new AbortController();
  /**
   * Waits `ms`, or less when the delivery is stopped or woken (its lead was erased meanwhile: check
   * again now); true when woken.
   */
  const wait = (ms: number, woken: Promise<void>) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      stopping.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(false)), { once: true });
      void woken.then(() => (clearTimeout(timer), resolve(true)));
    });
  const never = new Promise<void>(() => undefined);
  /** Each lead's `Lead Created` still being delivered: its `Lead Erased` goes out after it has ended. */
  const creating = new Map<string, { ended: Promise<unknown>; wake: () => void }>();

  const send = async (event: DeliveredEvent, wakeUp: Promise<void>): Promise<DeliveryOutcome> => {
    let woken = wakeUp;
    const leadId = leadIdOf(event);
    const what = event['detail-type'];
    const started = Date.now();
    let delay = firstDelayMs;
    for (let attempt = 1; ; attempt += 1) {
      if (stopping.signal.aborted) return 'stopped';
      let problem: string;
      try {
        let sending: DeliveredEvent | undefined;
        try {
          sending = await current(event);
        } catch {
          throw new CheckFailed();
        }
        if (!sending) {
          log(`${what} ${leadId} not delivered to ${url}: the lead was erased`);
          return 'erased';
        }
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
          body: JSON.stringify(sending),
          signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stopping.signal]),
        });
        await response.arrayBuffer().catch(() => undefined);
        if (response.ok) {
          log(`${what} ${leadId} delivered to ${url} (HTTP ${response.status}, attempt ${attempt})`);
          return 'delivered';
        }
        if (!retryable(response.status)) {
          log(`${what} ${leadId} refused by ${url} (HTTP ${response.status}): not retried`);
          return 'refused';
        }
        problem = `HTTP ${response.status}`;
      } catch (error) {
        if (stopping.signal.aborted) return 'stopped';
        problem =
          error instanceof CheckFailed ? 'the Leads table could not be read to check the lead' : (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : connectionProblem(error);
      }
      if (Date.now() - started + delay > giveUpAfterMs) {
        log(`${what} ${leadId} given up after ${attempt} attempts to ${url} (${problem})`);
        return 'given_up';
      }
      log(`${what} ${leadId} not delivered to ${url} (${problem}); retrying in ${delay} ms`);
      // Woken once: the retries after it keep their back-off (an erasure that took only a field leaves the lead to send).
      if (await wait(delay, woken)) woken = never;
      delay = Math.min(delay * 2, maxDelayMs);
    }
  };

  return {
    deliver: (event) => {
      const leadId = leadIdOf(event);
      if (event['detail-type'] === leadErasedEvent.detailType) {
        const pending = creating.get(leadId);
        if (!pending) return send(event, never);
        pending.wake();
        return pending.ended.then(() => send(event, never));
      }
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const ended = send(event, woken);
      const entry = { ended, wake };
      creating.set(leadId, entry);
      void ended.finally(() => creating.get(leadId) === entry && creating.delete(leadId));
      return ended;
    },
    stop: () => stopping.abort(),
  };
};

/** The check before an attempt failed (the table could not answer): the attempt is retried, nothing sent unchecked. */
class CheckFailed extends Error {}

const connectionProblem = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
};
