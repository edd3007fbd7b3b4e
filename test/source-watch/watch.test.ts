/**
 * A source gone quiet, noticed (CONTRACT.md section 16), on DynamoDB Local: leads stored through the
 * real handlers, the Leads stream read as npm start reads it and handed in batches to the watch's
 * function (its handler, as Lambda's stream mapping hands them), and the check run as its schedule runs
 * it, under a clock the test moves instead of waiting hours.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLeadStreamReader, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import { channelRows, type ChannelRow } from '../../shared/domain/channel-watch.ts';
import type { SourceWatchEvent } from '../../shared/domain/source-watch.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { countedLeadOf, type LeadStreamRecord } from '../../shared/dynamodb/lead-stream.ts';
import { marshall } from '@aws-sdk/util-dynamodb';
import { channelConnectionFields } from '../../shared/sources/registry.ts';
import { channelWatch, sourceWatchHandler } from '../../shared/source-watch.ts';
import { adminApi } from '../support/admin-handler.ts';
import { asFunction } from '../support/aws-calls.ts';
import { callId, callTestService, projectNumber, type CallTestService } from '../support/call-service.ts';
import { waitFor } from '../support/processes.ts';
import { uniqueMobile, validBody } from '../support/service.ts';

const MINUTE = 60_000;
const settings = { minLeads: 3, minMinutes: 60, quietHours: null };
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

let service: CallTestService;
let reader: LeadStreamReader;
/** How far the watch's clock is ahead of the real one. */
let ahead = 0;
const clock = () => new Date(Date.now() + ahead);
const published: SourceWatchEvent[] = [];
const counted = new Set<string>();
const logLines: string[] = [];

/** The watch's function as a container builds it: its own store and the bus (here a list). */
const watchFunction = () => {
  const watch = channelWatch({
    db: createDocumentClient({ client: service.client }),
    leadsTable: service.tables.leads,
    configTable: service.tables.config,
    events: { publish: async (event) => void published.push(event) },
    settings,
    now: clock,
  });
  return { watch, handler: sourceWatchHandler({ watch, connectionFields: channelConnectionFields, write: (line) => void logLines.push(line), now: clock }) };
};
let container: ReturnType<typeof watchFunction>;

const keys: Record<string, string> = {};

beforeAll(async () => {
  service = await callTestService();
  container = watchFunction();
  reader = await startLeadStreamReader({
    dynamodb: service.client,
    endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
    leadsTable: service.tables.leads,
    onEvent: () => undefined,
    onRecords: async (records: readonly LeadStreamRecord[]) => {
      const answer = await asFunction('source-watch', () => container.handler({ Records: records.map((record, i) => ({ ...record, dynamodb: { ...record.dynamodb, SequenceNumber: String(i) } })) }));
      expect(answer).toEqual({ batchItemFailures: [] });
      for (const record of records) {
        const lead = countedLeadOf(record, channelConnectionFields);
        if (lead) counted.add(lead.leadId);
      }
    },
    pollIntervalMs: 50,
  });
}, 30_000);

afterAll(async () => {
  await reader?.stop();
});

const account = async (id: string) => {
  await service.seedAccount({ id, duplicateSetting: 'ignore', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page', 'Riverside page'], social: ['fb', 'ig'] });
  keys[id] = await service.issueKey(id);
};

/** Stores a lead through an endpoint and waits until the watch has counted it. */
const lead = async (accountId: string, name: 'website' | 'portala' | 'portalb' | 'social' = 'website', overrides: Record<string, unknown> = {}) => {
  const body = validBody(name, project, overrides);
  expect((await service.call(name, { apiKey: keys[accountId]!, body })).status).toBe(200);
  const stored = (await service.leadsOf(accountId)).find((l) => l.mobile_number === body.mobile_number)!;
  await waitFor(() => counted.has(stored.id), `lead ${stored.id} counted`, 10_000);
  return stored;
};

/** Runs the scheduled check `minutes` after now (the stream's leads were stored now). */
const checkAt = async (minutes: number, fn = container) => {
  ahead = minutes * MINUTE;
  try {
    return await asFunction('source-watch', () => fn.handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' }));
  } finally {
    ahead = 0;
  }
};

const eventsOf = (accountId: string, detailType: string) => published.filter((e) => e.detailType === detailType && e.detail.account_id === accountId);
const rowsOf = (accountId: string, minutes = 0): Promise<ChannelRow[]> =>
  channelRows({ store: service.repository.channels, settings, now: () => new Date(Date.now() + minutes * MINUTE) }, accountId);

describe('a watched channel', () => {
  const id = 'acc-quiet';
  let last: Awaited<ReturnType<typeof lead>>;

  beforeAll(async () => {
    await account(id);
    for (let i = 0; i < 3; i += 1) last = await lead(id, 'website', { sub_source: 'Skyline landing page' });
  });

  it('is not silent before its silence passes the larger of silenceMinMinutes and four median gaps', async () => {
    await checkAt(30);
    expect(eventsOf(id, 'Source Silent')).toEqual([]);
    expect((await rowsOf(id)).map((row) => [row.source, row.sub_source, row.leads_14d, row.state])).toEqual([['website', 'Skyline landing page', 3, 'watched']]);
  });

  it('turns silent once: one Source Silent however many checks follow', async () => {
    await checkAt(61);
    await checkAt(90);
    await checkAt(24 * 60);
    const silent = eventsOf(id, 'Source Silent');
    expect(silent).toHaveLength(1);
    const [row] = await rowsOf(id);
    expect(silent[0]!.detail).toEqual({
      account_id: id,
      channel: { source: 'website', sub_source: 'Skyline landing page' },
      last_lead_at: last.created_at,
      silent_minutes: expect.any(Number),
      usual_gap_minutes: row!.usual_gap_minutes,
      leads_14d: 3,
    });
    expect((silent[0]!.detail as { silent_minutes: number }).silent_minutes).toBeGreaterThanOrEqual(60);
    expect(row!.state).toBe('silent');
    // The check's metric: the account's silent channels, and under Service for the alarm.
    expect(logLines.map((line) => JSON.parse(line)).filter((line) => line.AccountId === id).at(-1)).toMatchObject({ SilentChannels: 1, Service: 'lead-intake' });
  });

  it('resumes once, with its next lead: one Source Resumed, none for the leads after it', async () => {
    const next = await lead(id, 'website', { sub_source: 'Skyline landing page' });
    await lead(id, 'website', { sub_source: 'Skyline landing page' });
    const resumed = eventsOf(id, 'Source Resumed');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.detail).toEqual({ account_id: id, channel: { source: 'website', sub_source: 'Skyline landing page' }, silent_since: last.created_at, resumed_at: next.created_at });
    expect((await rowsOf(id))[0]).toMatchObject({ leads_14d: 5, state: 'watched' });
  });

  it('turns silent again after a new silence, once', async () => {
    await checkAt(61);
    await checkAt(62);
    expect(eventsOf(id, 'Source Silent')).toHaveLength(2);
  });
});

describe('a channel with fewer than silenceMinLeads leads in 14 days', () => {
  it('is too_few and never silent', async () => {
    const id = 'acc-few';
    await account(id);
    await lead(id, 'portala');
    await lead(id, 'portala');
    await checkAt(3 * 24 * 60);
    expect(eventsOf(id, 'Source Silent')).toEqual([]);
    expect((await rowsOf(id)).map((row) => [row.source, row.leads_14d, row.state])).toEqual([['portala', 2, 'too_few']]);
  });
});

describe('what counts', () => {
  it('only stored leads: never a dry run, an idempotent replay, a honeypot or a rejection', async () => {
    const id = 'acc-kinds';
    await account(id);
    const browserKey = (await service.issueScopedKey({ accountId: id, origins: ['https://shop.example'] })).key;
    const body = validBody('website', project, { sub_source: 'Skyline landing page' });
    const first = await service.call('website', { apiKey: keys[id]!, body, headers: { 'Idempotency-Key': `watch-${body.mobile_number}` } });
    const replay = await service.call('website', { apiKey: keys[id]!, body, headers: { 'Idempotency-Key': `watch-${body.mobile_number}` } });
    expect([first.status, replay.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect((await service.call('website', { apiKey: keys[id]!, body: validBody('website', project, { sub_source: 'Skyline landing page' }), headers: { 'x-dry-run': 'true' } })).status).toBe(200);
    const bot = await service.call('website', { apiKey: browserKey, body: validBody('website', project, { sub_source: 'Skyline landing page', company_website: 'x' }), headers: { origin: 'https://shop.example' } });
    expect(bot.status).toBe(200);
    expect((await service.call('website', { apiKey: keys[id]!, body: { ...body, name: 'Again' } })).status).toBe(422); // a duplicate under ignore
    expect((await service.call('website', { apiKey: keys[id]!, body: { ...body, mobile_number: '12' } })).status).toBe(422);
    // A lead stored after them all, on another channel: once it is counted, anything before it was too.
    await lead(id, 'portalb');
    expect((await rowsOf(id)).map((row) => [row.source, row.sub_source, row.leads_14d])).toEqual([
      ['portalb', null, 1],
      ['website', 'Skyline landing page', 1],
    ]);
  });

  it('channels apart by sub source, endpoint, platform and connection', async () => {
    const id = 'acc-apart';
    await account(id);
    await lead(id, 'website', { sub_source: 'Skyline landing page' });
    await lead(id, 'website', { sub_source: 'Riverside page' });
    await lead(id, 'portala');
    await lead(id, 'portalb');
    await lead(id, 'social', { platform: 'fb' });
    await lead(id, 'social', { platform: 'ig' });
    const callsKey = await service.callsKey(id);
    const numbers = [projectNumber(), projectNumber()];
    for (const number of numbers) {
      await service.connectNumber(id, number);
      const call = callId();
      expect((await service.deliver({ provider: 'exotel', queryKey: callsKey, query: { CallSid: call, CallFrom: uniqueMobile(), CallTo: number, CallType: 'completed' } })).status).toBe(200);
      const stored = (await service.leadsOf(id)).find((l) => l.call_id === call)!;
      await waitFor(() => counted.has(stored.id), 'the call lead counted', 10_000);
    }
    const rows = await rowsOf(id);
    expect(rows.map((row) => [row.source, row.sub_source, row.connection_id, row.leads_14d])).toEqual(
      expect.arrayContaining([
        ['website', 'Skyline landing page', null, 1],
        ['website', 'Riverside page', null, 1],
        ['portala', null, null, 1],
        ['portalb', null, null, 1],
        ['social', 'fb', null, 1],
        ['social', 'ig', null, 1],
        ['call', 'exotel', numbers[0], 1],
        ['call', 'exotel', numbers[1], 1],
      ]),
    );
    expect(rows).toHaveLength(8);
    // Most recent first.
    expect(rows.map((row) => row.last_lead_at)).toEqual([...rows.map((row) => row.last_lead_at)].sort().reverse());
  });

  it('a stream record delivered twice counts once, and a lead counted late leaves the channel’s last lead alone', async () => {
    const id = 'acc-twice';
    await account(id);
    const first = await lead(id, 'portala');
    const second = await lead(id, 'portala');
    // The first lead's INSERT again, as a retried batch hands it on after the second was counted.
    const again = { eventName: 'INSERT', dynamodb: { SequenceNumber: '1', NewImage: marshall({ item_type: 'lead', account_id: id, ...first }, { removeUndefinedValues: true }) } };
    expect(await asFunction('source-watch', () => container.handler({ Records: [again, again] }))).toEqual({ batchItemFailures: [] });
    expect((await rowsOf(id)).map((row) => [row.source, row.leads_14d, row.last_lead_at])).toEqual([['portala', 2, second.created_at]]);
  });

  it('an erasure leaves the counts alone: they hold times and ids, nothing of the person', async () => {
    const id = 'acc-erased';
    await account(id);
    const mobile = uniqueMobile();
    await lead(id, 'portala', { mobile_number: mobile });
    await lead(id, 'portala');
    expect(await service.repository.people.erasePerson(id, { kind: 'mobile', value: mobile })).toMatchObject({ leads: 1 });
    await lead(id, 'portalb');
    expect((await rowsOf(id)).find((row) => row.source === 'portala')).toMatchObject({ leads_14d: 2 });
  });
});

describe("the account's quiet hours", () => {
  it('are its own when it has them: a silence inside them is not counted, and GET answers them', async () => {
    const id = 'acc-night';
    const admin = adminApi(service);
    // Quiet for all but a minute of the day, India time: the hour after the leads cannot count.
    const nowIst = new Date(Date.now() + 330 * MINUTE);
    const hhmm = (d: Date) => `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
    const quiet = `${hhmm(new Date(nowIst.getTime() - 2 * MINUTE))}-${hhmm(new Date(nowIst.getTime() - 3 * MINUTE))}`;
    const put = await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'Night Realty', silenceQuietHours: quiet });
    expect([put.status, put.body.silenceQuietHours]).toEqual([200, quiet]);
    await service.repository.accounts.putProject(id, { id: 'PRJ-1', name: 'P' });
    await service.repository.accounts.putCampaign(id, { id: 'CMP-1', projectId: 'PRJ-1', name: 'C' });
    keys[id] = await service.issueKey(id);
    for (let i = 0; i < 3; i += 1) await lead(id, 'portalb');
    await checkAt(120);
    expect(eventsOf(id, 'Source Silent')).toEqual([]);
    // Listed two hours on: watched under the account's quiet hours, silent under the settings' (none).
    const later = { store: service.repository.channels, settings, now: () => new Date(Date.now() + 120 * MINUTE) };
    expect((await channelRows(later, id, (await admin('GET', `/admin/v1/accounts/${id}`)).body.silenceQuietHours)).map((row) => row.state)).toEqual(['watched']);
    expect((await channelRows(later, id)).map((row) => row.state)).toEqual(['silent']);
    expect(await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'Night Realty', silenceQuietHours: '22-08' })).toMatchObject({
      status: 400,
      body: { message: 'silenceQuietHours must be HH:MM-HH:MM (India time) or none' },
    });
  });
});

describe('two checks at once', () => {
  it('send one Source Silent between them', async () => {
    const id = 'acc-race';
    await account(id);
    for (let i = 0; i < 3; i += 1) await lead(id, 'social', { platform: 'fb' });
    const other = watchFunction();
    ahead = 61 * MINUTE;
    try {
      await Promise.all([asFunction('source-watch', () => container.handler({})), asFunction('source-watch', () => other.handler({}))]);
    } finally {
      ahead = 0;
    }
    expect(eventsOf(id, 'Source Silent')).toHaveLength(1);
  });
});

describe('GET /admin/v1/accounts/{accountId}/sources', () => {
  it("answers the account's channels as admin sources lists them, and 404 for an unknown account", async () => {
    const admin = adminApi(service);
    const answer = await admin('GET', '/admin/v1/accounts/acc-apart/sources');
    expect(answer.status).toBe(200);
    expect(answer.body.map((row: ChannelRow) => row.state)).toEqual(Array(8).fill('too_few'));
    expect(answer.body).toEqual(await rowsOf('acc-apart'));
    expect(await admin('GET', '/admin/v1/accounts/acc-none/sources')).toMatchObject({ status: 404, body: { status: false, message: 'Account not found' } });
  });
});

describe('failures', () => {
  it('a Source Silent the bus refused is sent by the next check, once', async () => {
    const id = 'acc-refused';
    await account(id);
    for (let i = 0; i < 3; i += 1) await lead(id, 'portalb');
    const refusing = channelWatch({
      db: createDocumentClient({ client: service.client }),
      leadsTable: service.tables.leads,
      events: { publish: async () => Promise.reject(new Error('bus unavailable')) },
      settings,
      now: () => new Date(Date.now() + 61 * MINUTE),
    });
    const failed = await asFunction('source-watch', () => refusing.check());
    expect(failed.failures).toBeGreaterThanOrEqual(1);
    expect(eventsOf(id, 'Source Silent')).toEqual([]);
    await checkAt(61);
    await checkAt(62);
    expect(eventsOf(id, 'Source Silent')).toHaveLength(1);
  });

  it('a batch whose lead could not be counted reports that record, for Lambda to hand on again', async () => {
    const broken = channelWatch({ db: createDocumentClient({ client: service.client }), leadsTable: `${service.tables.leads}-missing`, events: { publish: async () => undefined }, settings, now: clock });
    const handler = sourceWatchHandler({ watch: broken, connectionFields: channelConnectionFields, write: () => undefined });
    const image = marshall({ item_type: 'lead', account_id: 'acc-x', id: 'L-1', source: 'portala', sub_source: null, created_at: new Date().toISOString() });
    expect(await handler({ Records: [{ eventName: 'INSERT', dynamodb: { SequenceNumber: '42', NewImage: image } }] })).toEqual({ batchItemFailures: [{ itemIdentifier: '42' }] });
  });
});
