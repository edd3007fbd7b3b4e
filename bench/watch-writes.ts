/**
 * Section 7: the quiet-source watch's writes per stored lead (issue 44, item 7), beside nothing but
 * itself: the same leads' INSERT records handed to the watch's function one per batch and ten per
 * batch, as Lambda's stream mapping hands them, every write it sends counted (requests, and the write
 * units DynamoDB reports), and the channel's median gap read back against the one computed from the
 * leads' own times.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { medianGapMinutes } from '../shared/domain/source-watch.ts';
import { createDocumentClient, createDynamoDbClient } from '../shared/dynamodb/client.ts';
import { DynamoDbChannelStore, RECENT_TIMES_CAP } from '../shared/dynamodb/channels.ts';
import { channelConnectionFields } from '../shared/sources/registry.ts';
import { channelWatch, sourceWatchHandler } from '../shared/source-watch.ts';

export interface WatchWritesCase {
  readonly leadsPerBatch: number;
  readonly leads: number;
  readonly writes: number;
  readonly writeUnits: number;
  readonly writesPerLead: number;
  readonly writeUnitsPerLead: number;
  /** The channel's median gap as the watch reads it back equals the leads' own, to the millisecond. */
  readonly exactMedian: boolean;
  readonly target: number;
  readonly met: boolean;
}

const WRITE_COMMANDS = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;

export const measureWatchWrites = async (endpoint: string, leadsTable: string, { leads }: { leads: number }): Promise<WatchWritesCase[]> => {
  const client = createDynamoDbClient({ endpoint });
  let writes = 0;
  let writeUnits = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!WRITE_COMMANDS.test(String(context.commandName))) return next(args);
      writes += 1;
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      writeUnits += Number((result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity?.CapacityUnits ?? 0);
      return result;
    },
    { step: 'initialize', name: 'countWatchWrites' },
  );
  const db = createDocumentClient({ client });
  const watch = channelWatch({ db, leadsTable, events: { publish: async () => undefined }, settings: { minLeads: 10, minMinutes: 360, quietHours: null } });
  const handler = sourceWatchHandler({ watch, connectionFields: channelConnectionFields, write: () => undefined });
  const cases: WatchWritesCase[] = [];
  // Issue 44's goals, 1 and 0.3. One lead per batch cannot be under one write (the channel's last lead
  // is written), and the times of an exact median move to a bucket item once per RECENT_TIMES_CAP leads
  // (a longer list on the channel's item would cost a second write unit on every write instead).
  for (const [leadsPerBatch, target] of [
    [1, 1 + 1 / RECENT_TIMES_CAP],
    [10, 0.3],
  ] as const) {
    const accountId = `acc-watch-${leadsPerBatch}`;
    // A lead every 1 to 20 minutes over the last days: irregular, so the median is a real one.
    const start = Date.now() - leads * 20 * 60_000;
    let at = start;
    const times = Array.from({ length: leads }, (_, i) => (at += 60_000 + ((i * 7_919_111) % (19 * 60_000))));
    const records = times.map((time, i) => ({
      eventName: 'INSERT',
      dynamodb: {
        SequenceNumber: String(i),
        NewImage: marshall({ item_type: 'lead', account_id: accountId, id: `L-${leadsPerBatch}-${i}`, source: 'portala', sub_source: 'bench', created_at: new Date(time).toISOString() }),
      },
    }));
    writes = 0;
    writeUnits = 0;
    for (let i = 0; i < records.length; i += leadsPerBatch) {
      const answer = await handler({ Records: records.slice(i, i + leadsPerBatch) });
      if ('batchItemFailures' in answer && answer.batchItemFailures.length > 0) throw new Error(`the watch did not count a batch: ${JSON.stringify(answer)}`);
    }
    const counted = { writes, writeUnits };
    const read = await new DynamoDbChannelStore(db, leadsTable).leadTimes(accountId, { source: 'portala', sub_source: 'bench', connection_id: null }, new Date(start - 60_000));
    const exactMedian = read.length === leads && medianGapMinutes(read) === medianGapMinutes(times.map((time) => new Date(time)));
    cases.push({
      leadsPerBatch,
      leads,
      ...counted,
      writesPerLead: counted.writes / leads,
      writeUnitsPerLead: counted.writeUnits / leads,
      exactMedian,
      target,
      met: counted.writes / leads <= target && exactMedian,
    });
  }
  client.destroy();
  return cases;
};
