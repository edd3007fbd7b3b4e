/**
 * Exactly once (CONTRACT.md section 13), as calls keep it: one call id of two providers is two calls;
 * a refused call is recorded once, and the first delivery decides; duplicates follow the account's
 * setting like any lead's; a database outage answers 503 so the provider retries, and the retry stores
 * the call once; a warm new call lead costs what a warm website lead costs. A redelivered or
 * simultaneously delivered call stored once, and a database that never answers answered 503 in time,
 * are every source's promises (test/sources/every-source.test.ts).
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { failFirst, injectFaults, namedError, transactionConflict } from '../support/faults.ts';
import { uniqueMobile, validBody } from '../support/service.ts';
import { callId, callTestService, projectNumber, type CallTestService } from '../support/call-service.ts';
import { untilAnswered } from '../support/sender.ts';

let calls: CallTestService;
const keys: Partial<Record<DuplicateSetting, string>> = {};
const numbers: Partial<Record<DuplicateSetting, string>> = {};

beforeAll(async () => {
  calls = await callTestService();
  for (const setting of ['ignore', 'create', 'merge'] as const) {
    await calls.seedAccount({ id: `acc-${setting}`, duplicateSetting: setting, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    keys[setting] = await calls.callsKey(`acc-${setting}`);
    numbers[setting] = projectNumber();
    await calls.connectNumber(`acc-${setting}`, numbers[setting]!);
  }
});

const deliver = (setting: DuplicateSetting, id: string, caller: string, provider = 'knowlarity', called = numbers[setting]!) =>
  calls.deliver({ provider, headerKey: keys[setting]!, json: provider === 'knowlarity' ? { callid: id, caller_id: caller, dispnumber: called, call_duration: 9 } : { call_id: id, caller_number: caller, called_number: called } });
const leadsWith = async (setting: DuplicateSetting, id: string) => (await calls.leadsOf(`acc-${setting}`)).filter((lead) => lead.call_id === id);
const recordsWith = async (setting: DuplicateSetting, id: string) => (await calls.rejectionsOf(`acc-${setting}`)).filter((record) => record.call_id === id);

describe('one call id, one lead', () => {
  it('keeps one call id of two providers apart: two calls', async () => {
    const id = callId();
    await deliver('create', id, uniqueMobile(), 'knowlarity');
    await deliver('create', id, uniqueMobile(), 'generic');
    expect((await leadsWith('create', id)).map((lead) => lead.sub_source).sort()).toEqual(['generic', 'knowlarity']);
  });

  it('holds the call id for at least 15 days', async () => {
    const id = callId();
    await deliver('create', id, uniqueMobile());
    const [lead] = await leadsWith('create', id);
    const { Items } = await calls.client.send(
      new ScanCommand({
        TableName: calls.tables.leads,
        FilterExpression: 'item_type = :type AND contains(#lead, :id)',
        ExpressionAttributeNames: { '#lead': 'lead' },
        ExpressionAttributeValues: { ':type': { S: 'idempotency_key' }, ':id': { S: lead!.id } },
      }),
    );
    expect(Items).toHaveLength(1);
    expect(Number(Items![0]!.expires_at!.N) - Date.parse(lead!.created_at) / 1000).toBeGreaterThanOrEqual(15 * 24 * 60 * 60 - 1);
  });
});

describe('one call id, one rejection record', () => {
  it('records a refused call once, for a redelivery and for 10 simultaneous deliveries', async () => {
    const id = callId();
    const other = projectNumber();
    await deliver('ignore', id, uniqueMobile(), 'knowlarity', other);
    await deliver('ignore', id, uniqueMobile(), 'knowlarity', other);
    expect(await recordsWith('ignore', id)).toEqual([expect.objectContaining({ reason: 'call_number_not_connected', provider: 'knowlarity' })]);

    const many = callId();
    const answers = await Promise.all(Array.from({ length: 10 }, () => untilAnswered(() => deliver('ignore', many, 'anonymous'))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(await recordsWith('ignore', many)).toEqual([expect.objectContaining({ reason: 'validation' })]);
  });

  it('lets the first delivery decide: a call refused for its number stays refused after the number is connected', async () => {
    const id = callId();
    const later = projectNumber();
    const mobile = uniqueMobile();
    await deliver('create', id, mobile, 'knowlarity', later);
    await calls.connectNumber('acc-create', later);
    expect((await deliver('create', id, mobile, 'knowlarity', later)).status).toBe(200);
    expect(await leadsWith('create', id)).toEqual([]);
    expect(await recordsWith('create', id)).toHaveLength(1);
  });
});

describe('duplicates: another call from a person the project has, under each setting', () => {
  it('under ignore: 200, nothing stored, a duplicate_lead record that shows the repeat call', async () => {
    const mobile = uniqueMobile();
    await deliver('ignore', callId(), mobile);
    const id = callId();
    expect(await deliver('ignore', id, mobile)).toMatchObject({ status: 200, body: { status: true, message: 'Call received' } });
    expect((await calls.leadsOf('acc-ignore')).filter((lead) => lead.mobile_number === mobile)).toHaveLength(1);
    expect(await recordsWith('ignore', id)).toEqual([
      expect.objectContaining({ endpoint: 'call', provider: 'knowlarity', call_id: id, reason: 'duplicate_lead', message: 'Lead already exists' }),
    ]);
    await deliver('ignore', id, mobile);
    expect(await recordsWith('ignore', id)).toHaveLength(1);
  });

  it('under create: stored as a repeat with no parent', async () => {
    const mobile = uniqueMobile();
    await deliver('create', callId(), mobile);
    const id = callId();
    await deliver('create', id, mobile);
    expect(await leadsWith('create', id)).toEqual([expect.objectContaining({ is_repeated: true, parent_lead_id: null })]);
  });

  it('under merge: a repeat linked to the original, whatever endpoint the original came through', async () => {
    const mobile = uniqueMobile();
    const apiKey = await calls.issueKey('acc-merge');
    const website = await calls.call('website', { apiKey, body: { name: 'Asha', mobile_number: mobile, projectID: 'PRJ-1', campaignID: 'CMP-1', sub_source: 'Skyline landing page' } });
    expect(website.status).toBe(200);
    const id = callId();
    await deliver('merge', id, mobile);
    expect(await leadsWith('merge', id)).toEqual([expect.objectContaining({ is_repeated: true, parent_lead_id: website.body.data.id })]);
  });
});

describe('when the database is unavailable', () => {
  it.each([
    ['the number read', 'GetItemCommand', 'knowlarity'],
    ['the lead write', 'TransactWriteItemsCommand', 'knowlarity'],
    ['the rejection record', 'TransactWriteItemsCommand', 'refused'],
  ])('answers 503 with Retry-After when %s fails, and the retry stores the call once', async (_case, command, kind) => {
    const faults = failFirst(command, 1_000, () => namedError('ThrottlingException'));
    const faulty = await callTestService({ instrument: (client) => injectFaults(client, faults.fault), configCacheTtlSeconds: 0 });
    await faulty.seedAccount({ id: 'acc-down', projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await faulty.callsKey('acc-down');
    const number = projectNumber();
    await faulty.connectNumber('acc-down', number);
    const id = callId();
    const delivery = { provider: 'generic', queryKey: key, json: { call_id: id, caller_number: kind === 'refused' ? 'anonymous' : uniqueMobile(), called_number: number } };
    faults.arm();
    const answer = await faulty.deliver(delivery);
    faults.disarm();
    expect(answer).toMatchObject({ status: 503, body: { status: false, message: 'Service temporarily unavailable, please retry' } });
    expect(answer.headers['retry-after']).toBe('1');
    expect(await faulty.leadsOf('acc-down')).toHaveLength(0);
    expect(await faulty.rejectionsOf('acc-down')).toHaveLength(0);

    expect(await faulty.deliver(delivery)).toMatchObject({ status: 200, body: { message: 'Call received' } });
    expect(await faulty.deliver(delivery)).toMatchObject({ status: 200 });
    if (kind === 'refused') expect((await faulty.rejectionsOf('acc-down')).filter((r) => r.call_id === id)).toHaveLength(1);
    else expect((await faulty.leadsOf('acc-down')).filter((lead) => lead.call_id === id)).toHaveLength(1);
  });

  it('retries a rejection record that conflicts with a concurrent writer, and keeps it once', async () => {
    const faults = failFirst('TransactWriteItemsCommand', 2, transactionConflict);
    const faulty = await callTestService({ instrument: (client) => injectFaults(client, faults.fault) });
    await faulty.seedAccount({ id: 'acc-busy', projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await faulty.callsKey('acc-busy');
    const id = callId();
    faults.arm();
    const answer = await faulty.deliver({ queryKey: key, json: { call_id: id, caller_number: uniqueMobile(), called_number: projectNumber() } });
    faults.disarm();
    expect(answer.status).toBe(200);
    expect((await faulty.rejectionsOf('acc-busy')).filter((r) => r.call_id === id)).toEqual([expect.objectContaining({ reason: 'call_number_not_connected' })]);
  });

});

describe('DynamoDB round trips', () => {
  it('stores a warm new call lead in the one request a warm new website lead costs', async () => {
    const apiKey = await calls.issueKey('acc-create');
    const website = () => calls.call('website', { apiKey, body: validBody('website', { projectID: 'PRJ-1', campaignID: 'CMP-1' }) });
    const call = () => deliver('create', callId(), uniqueMobile());
    await website();
    await call();
    calls.roundTrips.reset();
    expect((await website()).status).toBe(200);
    const websiteCommands = calls.roundTrips.commands();
    calls.roundTrips.reset();
    expect((await call()).status).toBe(200);
    expect(calls.roundTrips.commands()).toEqual(websiteCommands);
    expect(websiteCommands).toEqual(['TransactWriteItemsCommand']);
  });
});
