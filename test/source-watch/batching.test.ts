/**
 * The quiet-source watch's writes (issue 44, item 7): a stream batch's leads of one channel are one
 * write of the channel, and section 16's median gap stays exact however the batches come (retried,
 * overlapping, two shards at once, across the moves of the channel's times into buckets). On
 * DynamoDB Local, the writes counted as the SDK sends them.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { channelRows, type CountedLead } from '../../shared/domain/channel-watch.ts';
import { medianGapMinutes } from '../../shared/domain/source-watch.ts';
import { createDocumentClient, createDynamoDbClient } from '../../shared/dynamodb/client.ts';
import { CHANNEL_LEAD_ITEM_TYPE, DynamoDbChannelStore, RECENT_TIMES_CAP } from '../../shared/dynamodb/channels.ts';
import { channelConnectionFields } from '../../shared/sources/registry.ts';
import { channelWatch, sourceWatchHandler } from '../../shared/source-watch.ts';
import { testService, type TestService } from '../support/service.ts';

const settings = { minLeads: 3, minMinutes: 60, quietHours: null };
const WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;

let service: TestService;
let writes = 0;
let client: DynamoDBClient;

beforeAll(async () => {
  service = await testService();
  client = createDynamoDbClient({ endpoint: process.env.TEST_DYNAMODB_ENDPOINT! });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (WRITES.test(String(context.commandName))) writes += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countWrites' },
  );
});

const store = () => new DynamoDbChannelStore(createDocumentClient({ client }), service.tables.leads);
const watch = () => channelWatch({ db: createDocumentClient({ client }), leadsTable: service.tables.leads, events: { publish: async () => undefined }, settings });
const handler = () => sourceWatchHandler({ watch: watch(), connectionFields: channelConnectionFields, write: () => undefined });

let sequence = 0;
/** A lead of `accountId` on the `portala` channel (or `source`), stored at `at`. */
const leadAt = (accountId: string, at: number, source = 'portala'): CountedLead => ({
  accountId,
  leadId: `L-${(sequence += 1)}`,
  createdAt: new Date(at),
  channel: { source, sub_source: null, connection_id: null },
});
/** The INSERT record of a lead item, as the Leads stream hands it on. */
const recordOf = (lead: CountedLead, seq = 0) => ({
  eventName: 'INSERT',
  dynamodb: {
    SequenceNumber: String(seq),
    NewImage: marshall({ item_type: 'lead', account_id: lead.accountId, id: lead.leadId, source: lead.channel.source, sub_source: null, created_at: lead.createdAt.toISOString() }),
  },
});
/** Sends leads through the watch's function in batches of `size`; the writes they took. */
const inBatches = async (leads: readonly CountedLead[], size: number) => {
  const fn = handler();
  const before = writes;
  for (let i = 0; i < leads.length; i += size) {
    expect(await fn({ Records: leads.slice(i, i + size).map((lead, j) => recordOf(lead, i + j)) })).toEqual({ batchItemFailures: [] });
  }
  return writes - before;
};

const HOUR = 3_600_000;
const LONG_AGO = new Date(Date.now() - 13 * 24 * HOUR);
/** Lead times with irregular gaps (a fixed sequence, so a failure reproduces), some in the same millisecond. */
const irregularTimes = (count: number, start = Date.now() - 10 * 24 * HOUR): number[] => {
  const times: number[] = [];
  let at = start;
  let seed = 7;
  for (let i = 0; i < count; i += 1) {
    seed = (seed * 48_271) % 2_147_483_647;
    at += i % 17 === 5 ? 0 : (seed % 3_000_000) + 1;
    times.push(at);
  }
  return times;
};

describe("a stream batch's leads", () => {
  it('are one write per channel, whatever their number', async () => {
    const leads = [...Array.from({ length: 10 }, (_, i) => leadAt('acc-batch', Date.now() - HOUR + i * 1000)), ...Array.from({ length: 5 }, (_, i) => leadAt('acc-batch', Date.now() - HOUR + i * 1000, 'portalb'))];
    expect(await inBatches(leads, leads.length)).toBe(2);
    const rows = await channelRows({ store: store(), settings, now: () => new Date() }, 'acc-batch');
    expect(rows.map((row) => [row.source, row.leads_14d])).toEqual([
      ['portala', 10],
      ['portalb', 5],
    ]);
  });

  it('cost at most one write per lead one at a time, and under 0.3 per lead ten at a time, the moves to buckets included', async () => {
    // Past two moves to a bucket, and no further: one at a time is a stream batch, and its writes, per lead.
    const count = RECENT_TIMES_CAP * 2 + 1;
    const one = await inBatches(irregularTimes(count).map((at) => leadAt('acc-one', at)), 1);
    const ten = await inBatches(irregularTimes(count).map((at) => leadAt('acc-ten', at)), 10);
    // A write per batch, and a bucket's per RECENT_TIMES_CAP leads.
    expect(one).toBeLessThanOrEqual(count + Math.ceil(count / RECENT_TIMES_CAP));
    expect(one / count).toBeLessThanOrEqual(1 + 1 / RECENT_TIMES_CAP + 1e-9);
    expect(ten / count).toBeLessThan(0.3);
  }, 90_000);
});

describe('the median gap between a channel’s leads', () => {
  it('is exact across buckets, retried batches, overlapping batches and leads in the same millisecond', async () => {
    const times = irregularTimes(RECENT_TIMES_CAP * 4 + 7);
    const leads = times.map((at) => leadAt('acc-exact', at));
    const fn = handler();
    let i = 0;
    for (const size of [1, 3, 17, 48, 2, 60, 9, 1, 5]) {
      const batch = leads.slice(i, i + size).map((lead, j) => recordOf(lead, i + j));
      expect(await fn({ Records: batch })).toEqual({ batchItemFailures: [] });
      // Lambda hands a batch on again, and a retried one from its middle with newer records after.
      expect(await fn({ Records: batch })).toEqual({ batchItemFailures: [] });
      const overlap = leads.slice(Math.max(0, i + size - 2), i + size + 2).map((lead, j) => recordOf(lead, j));
      expect(await fn({ Records: overlap })).toEqual({ batchItemFailures: [] });
      i = Math.min(leads.length, i + size + 2);
    }
    if (i < leads.length) expect(await fn({ Records: leads.slice(i).map((lead, j) => recordOf(lead, j)) })).toEqual({ batchItemFailures: [] });
    const stored = await store().leadTimes('acc-exact', leads[0]!.channel, LONG_AGO);
    expect(stored.map((time) => time.getTime())).toEqual([...times].sort((a, b) => a - b));
    expect(medianGapMinutes(stored)).toBe(medianGapMinutes(times.map((at) => new Date(at))));
    const [row] = await channelRows({ store: store(), settings, now: () => new Date() }, 'acc-exact');
    expect(row).toMatchObject({ leads_14d: times.length, last_lead_at: new Date(Math.max(...times)).toISOString() });
  });

  it('is exact when two shards count the same channel at once', async () => {
    const times = irregularTimes(RECENT_TIMES_CAP * 2);
    const leads = times.map((at) => leadAt('acc-shards', at));
    const watchA = watch();
    const watchB = watch();
    const halves = [leads.filter((_, i) => i % 2 === 0), leads.filter((_, i) => i % 2 === 1)];
    for (let i = 0; i < halves[0]!.length; i += 8) {
      const failures = await Promise.all([watchA.count(halves[0]!.slice(i, i + 8)), watchB.count(halves[1]!.slice(i, i + 8))]);
      expect(failures).toEqual([[], []]);
    }
    const stored = await store().leadTimes('acc-shards', leads[0]!.channel, LONG_AGO);
    expect(stored.map((time) => time.getTime())).toEqual(times);
    const [row] = await channelRows({ store: store(), settings, now: () => new Date() }, 'acc-shards');
    expect(row).toMatchObject({ leads_14d: times.length, last_lead_at: new Date(times.at(-1)!).toISOString() });
  });

  it('counts the lead times the watch kept one item per lead before, once, beside the new ones', async () => {
    const [old1, old2, both, new1] = irregularTimes(4).map((at) => leadAt('acc-before', at));
    const db = createDocumentClient({ client });
    const channelKey = 'portala#%#%';
    // As the per-lead counting left them: a time item per lead and the channel's item without a version.
    for (const lead of [old1!, old2!, both!]) {
      await db.send(new PutCommand({ TableName: service.tables.leads, Item: { pk: `CHANNEL#acc-before#${channelKey}`, sk: `${lead.createdAt.toISOString()}#${lead.leadId}`, item_type: CHANNEL_LEAD_ITEM_TYPE } }));
    }
    await db.send(
      new PutCommand({
        TableName: service.tables.leads,
        Item: { pk: 'CHANNELS#ALL', sk: `acc-before#${channelKey}`, item_type: 'channel', account_id: 'acc-before', source: 'portala', sub_source: null, connection_id: null, last_lead_at: both!.createdAt.toISOString(), last_lead_id: both!.leadId },
      }),
    );
    // `both` again: a record handed on again across the change.
    expect(await watch().count([both!, new1!])).toEqual([]);
    const stored = await store().leadTimes('acc-before', old1!.channel, LONG_AGO);
    expect(stored).toEqual([old1, old2, both, new1].map((lead) => lead!.createdAt));
    const [row] = await channelRows({ store: store(), settings, now: () => new Date() }, 'acc-before');
    expect(row).toMatchObject({ leads_14d: 4, last_lead_at: new1!.createdAt.toISOString() });
  });
});
