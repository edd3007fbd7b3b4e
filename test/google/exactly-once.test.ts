/**
 * Exactly once (CONTRACT.md section 10), as Google keeps it: the lead_id held 15 days; duplicates follow
 * the account's setting like any lead's; a database outage at the form read or at a test lead's record
 * answers 503 so Google retries, and the retry stores once. A redelivered or simultaneously delivered
 * lead stored once, and a stalled lead write answered 503 in time, are every source's promises
 * (test/sources/every-source.test.ts).
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { startFaultRelay, type RelayAction } from '../support/fault-relay.ts';
import { failFirst, injectFaults, namedError } from '../support/faults.ts';
import { uniqueMobile } from '../support/service.ts';
import { googleLeadId, googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';
import { timedWithStalls } from '../support/event-loop.ts';

let google: GoogleTestService;
const keys: Partial<Record<DuplicateSetting, string>> = {};
const forms: Record<DuplicateSetting, string> = { ignore: '41000000001', create: '41000000002', merge: '41000000003' };

beforeAll(async () => {
  google = await googleTestService();
  for (const setting of ['ignore', 'create', 'merge'] as const) {
    await google.seedAccount({ id: `acc-${setting}`, duplicateSetting: setting, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    keys[setting] = await google.connectForm(`acc-${setting}`, forms[setting]);
  }
});

const deliver = (setting: DuplicateSetting, leadId: string, mobile: string) =>
  google.deliver({ leadId, formId: forms[setting], key: keys[setting]!, columns: standardColumns(mobile) });

describe('one lead_id, one lead', () => {
  it('holds the lead_id for at least 15 days', async () => {
    const leadId = googleLeadId();
    await deliver('create', leadId, uniqueMobile());
    const lead = (await google.leadsOf('acc-create')).find((stored) => stored.google_lead_id === leadId)!;
    const { Items } = await google.client.send(
      new ScanCommand({
        TableName: google.tables.leads,
        FilterExpression: 'item_type = :type AND contains(#lead, :id)',
        ExpressionAttributeNames: { '#lead': 'lead' },
        ExpressionAttributeValues: { ':type': { S: 'idempotency_key' }, ':id': { S: lead.id } },
      }),
    );
    expect(Items).toHaveLength(1);
    const holds = Number(Items![0]!.expires_at!.N) - Date.parse(lead.created_at) / 1000;
    expect(holds).toBeGreaterThanOrEqual(15 * 24 * 60 * 60 - 1);
  });
});

describe('duplicates: another lead_id with a mobile the project has, under each setting', () => {
  it('under ignore: 200 Lead received, nothing stored, a duplicate_lead record with the google_lead_id', async () => {
    const mobile = uniqueMobile();
    await deliver('ignore', googleLeadId(), mobile);
    const leadId = googleLeadId();
    const answer = await deliver('ignore', leadId, mobile);
    expect(answer.body).toEqual({ status: true, message: 'Lead received' });
    expect((await google.leadsOf('acc-ignore')).filter((lead) => lead.mobile_number === mobile)).toHaveLength(1);
    const records = (await google.rejectionsOf('acc-ignore')).filter((record) => record.google_lead_id === leadId);
    expect(records).toEqual([expect.objectContaining({ endpoint: 'google_ads', reason: 'duplicate_lead', message: 'Lead already exists', mobile: `******${mobile.slice(-4)}` })]);
  });

  it('under create: stored as a repeat with no parent', async () => {
    const mobile = uniqueMobile();
    await deliver('create', googleLeadId(), mobile);
    const leadId = googleLeadId();
    await deliver('create', leadId, mobile);
    const repeat = (await google.leadsOf('acc-create')).find((lead) => lead.google_lead_id === leadId);
    expect(repeat).toMatchObject({ is_repeated: true, parent_lead_id: null });
  });

  it('under merge: stored as a repeat linked to the original, whatever endpoint the original came through', async () => {
    const mobile = uniqueMobile();
    const apiKey = await google.issueKey('acc-merge');
    const website = await google.call('website', { apiKey, body: { name: 'Asha', mobile_number: mobile, projectID: 'PRJ-1', campaignID: 'CMP-1', sub_source: 'Skyline landing page' } });
    expect(website.status).toBe(200);
    const leadId = googleLeadId();
    await deliver('merge', leadId, mobile);
    const repeat = (await google.leadsOf('acc-merge')).find((lead) => lead.google_lead_id === leadId);
    expect(repeat).toMatchObject({ is_repeated: true, parent_lead_id: website.body.data.id });
  });
});

describe('when the database is unavailable', () => {
  it.each([
    ['the form read', 'GetItemCommand'],
    ['the lead write', 'TransactWriteItemsCommand'],
  ])('answers 503 with Retry-After when %s fails, and the retry stores the lead once', async (_case, command) => {
    const faults = failFirst(command, 1_000, () => namedError('ThrottlingException'));
    const faulty = await googleTestService({ instrument: (client) => injectFaults(client, faults.fault), configCacheTtlSeconds: 0 });
    await faulty.seedAccount({ id: 'acc-down', projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await faulty.connectForm('acc-down', '42000000001');
    const delivery = { leadId: googleLeadId(), formId: '42000000001', key, columns: standardColumns(uniqueMobile()) };
    faults.arm();
    const answer = await faulty.deliver(delivery);
    faults.disarm();
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ status: false, message: 'Service temporarily unavailable, please retry' });
    expect(answer.headers['retry-after']).toBe('1');
    expect(await faulty.leadsOf('acc-down')).toHaveLength(0);

    const retry = await faulty.deliver(delivery);
    expect(retry.body).toEqual({ status: true, message: 'Lead received' });
    expect(await faulty.deliver(delivery)).toMatchObject({ status: 200 });
    expect((await faulty.leadsOf('acc-down')).filter((lead) => lead.google_lead_id === delivery.leadId)).toHaveLength(1);
  });

  it('answers 503, not 200, when a refusal cannot be recorded, so Google retries rather than the lead going missing', async () => {
    // The record, its person lookup items and the form's guard are one TransactWriteItems (CONTRACT.md sections 10 and 12).
    const faults = failFirst('TransactWriteItemsCommand', 1_000, () => namedError('ThrottlingException'));
    const faulty = await googleTestService({ instrument: (client) => injectFaults(client, faults.fault) });
    await faulty.seedAccount({ id: 'acc-down', projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await faulty.connectForm('acc-down', '42000000002');
    const leadId = googleLeadId();
    faults.arm();
    const answer = await faulty.deliver({ leadId, formId: '42000000002', key, isTest: true, columns: standardColumns(uniqueMobile()) });
    faults.disarm();
    expect(answer.status).toBe(503);
    expect(await faulty.rejectionsOf('acc-down')).toHaveLength(0);
    await faulty.deliver({ leadId, formId: '42000000002', key, isTest: true, columns: standardColumns(uniqueMobile()) });
    expect((await faulty.rejectionsOf('acc-down')).map((record) => record.reason)).toEqual(['google_test_lead']);
  });
});

describe('a database that accepts connections and never answers', () => {
  it.each([
    ['the form read', 'GetItem', false],
    // The record, its person lookup items and the form's guard are one TransactWriteItems (CONTRACT.md sections 10 and 12).
    ['the rejection record of a test lead', 'TransactWriteItems', true],
  ])('answers 503 with the envelope before the function times out when %s never answers, and the retry stores once', async (_case, operation, isTest) => {
    const relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
    try {
      const timeoutMs = 2_000;
      const slow = await googleTestService({ endpoint: relay.endpoint, functionTimeoutMs: timeoutMs, configCacheTtlSeconds: 0 });
      await slow.seedAccount({ id: 'acc-stall', projects: { 'PRJ-1': ['CMP-1'] } });
      const key = await slow.connectForm('acc-stall', '42000000003');
      const delivery = { leadId: googleLeadId(), formId: '42000000003', key, isTest, columns: standardColumns(uniqueMobile()) };
      const stall: RelayAction = { kind: 'stall' };
      relay.plan((request) => (request.operation === operation ? stall : undefined));
      // Less the test process's own event-loop stalls: a busy machine's doing, not the service's.
      const { answer, ms, stallMs } = await timedWithStalls(() => slow.deliver(delivery));
      expect(ms - stallMs).toBeLessThan(timeoutMs);
      expect(answer).toMatchObject({ status: 503, body: { status: false, message: 'Service temporarily unavailable, please retry' } });
      expect(answer.headers['retry-after']).toEqual(expect.stringMatching(/^[1-9]\d*$/));
      expect(answer.headers['x-request-id']).toEqual(expect.any(String));

      relay.heal();
      expect((await slow.deliver(delivery)).status).toBe(200);
      if (isTest) expect((await slow.rejectionsOf('acc-stall')).filter((r) => r.google_lead_id === delivery.leadId)).toHaveLength(1);
      else expect((await slow.leadsOf('acc-stall')).filter((lead) => lead.google_lead_id === delivery.leadId)).toHaveLength(1);
    } finally {
      await relay.close();
    }
  }, 20_000);
});
