/**
 * A call lead downstream (CONTRACT.md sections 9, 12 and 13): its Lead Created event from the Leads
 * table's stream; a caller's leads and records found by access and removed by erasure (a redelivery
 * of an erased call stores nothing); and the request's log lines, which never hold the key (header or
 * query) nor the caller's number.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLeadStreamReader, type LeadCreatedDelivery as DeliveredEvent, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import { PersonData } from '../../shared/domain/person-data.ts';
import { waitFor } from '../support/processes.ts';
import { uniqueMobile } from '../support/service.ts';
import { callId, callTestService, projectNumber, type CallTestService } from '../support/call-service.ts';

let calls: CallTestService;
let reader: LeadStreamReader;
let key: string;
let number: string;
const events: DeliveredEvent[] = [];

beforeAll(async () => {
  calls = await callTestService();
  await calls.seedAccount({ id: 'acc-ev', duplicateSetting: 'ignore', projects: { 'PRJ-1': ['CMP-1'] } });
  key = await calls.callsKey('acc-ev');
  number = projectNumber();
  await calls.connectNumber('acc-ev', number);
  reader = await startLeadStreamReader({
    dynamodb: calls.client,
    endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
    leadsTable: calls.tables.leads,
    onEvent: (event) => events.push(event as DeliveredEvent),
    pollIntervalMs: 50,
  });
}, 30_000);
afterAll(async () => {
  await reader?.stop();
});

const exotel = (id: string, caller: string) => ({ provider: 'exotel', queryKey: key, query: { CallSid: id, CallFrom: caller, CallTo: number, CallType: 'completed', DialCallDuration: '20' } });

describe('the Lead Created event of a call lead', () => {
  it('carries the whole stored lead with its call fields, once for a redelivered call', async () => {
    const id = callId();
    expect((await calls.deliver(exotel(id, uniqueMobile()))).status).toBe(200);
    expect((await calls.deliver(exotel(id, uniqueMobile()))).status).toBe(200);
    const stored = (await calls.leadsOf('acc-ev')).find((lead) => lead.call_id === id)!;
    await waitFor(() => events.some((event) => event.detail.lead.id === stored.id), `the event of lead ${stored.id}`, 10_000);
    // A sentinel call stored after the redelivery: once its event is in, any event of the redelivery would be too.
    const sentinel = callId();
    await calls.deliver(exotel(sentinel, uniqueMobile()));
    const sentinelLead = (await calls.leadsOf('acc-ev')).find((lead) => lead.call_id === sentinel)!;
    await waitFor(() => events.some((event) => event.detail.lead.id === sentinelLead.id), 'the sentinel event', 10_000);

    const ofCall = events.filter((event) => event.detail.lead.call_id === id);
    expect(ofCall).toHaveLength(1);
    expect(ofCall[0]).toMatchObject({ source: 'crm.lead-intake', 'detail-type': 'Lead Created' });
    expect(ofCall[0]!.detail).toEqual({ account_id: 'acc-ev', lead: stored });
    expect(stored).toMatchObject({ source: 'call', sub_source: 'exotel', name: 'Unknown caller', call_outcome: 'answered', call_duration_seconds: 20 });
  });
});

describe('a caller’s data', () => {
  it('is found by access and erased whole: the call lead and the record of the repeat call; a redelivery then stores nothing', async () => {
    const people = new PersonData(calls.repository.accounts, calls.repository.people);
    const caller = uniqueMobile();
    const first = callId();
    const repeat = callId();
    await calls.deliver(exotel(first, `+91${caller}`));
    await calls.deliver(exotel(repeat, caller));
    const found = await people.access('acc-ev', { mobile_number: caller });
    expect(found.leads.map((lead) => lead.call_id)).toEqual([first]);
    expect(found.rejections.map((record) => [record.reason, record.call_id])).toEqual([['duplicate_lead', repeat]]);

    expect(await people.erase('acc-ev', { mobile_number: caller })).toEqual({ leads: 1, rejections: 1, alternate_numbers: 0 });
    expect(await calls.deliver(exotel(first, caller))).toMatchObject({ status: 200, body: { status: true, message: 'Call received' } });
    expect(await calls.deliver(exotel(repeat, caller))).toMatchObject({ status: 200 });
    expect((await calls.leadsOf('acc-ev')).filter((lead) => lead.mobile_number === caller)).toEqual([]);
    expect(await people.access('acc-ev', { mobile_number: caller })).toEqual({ leads: [], rejections: [] });
  });
});

describe('the log lines', () => {
  it('name the account, outcome and lead, and never hold the key (header or query) nor the caller’s full number', async () => {
    const caller = uniqueMobile();
    calls.logs.length = 0;
    await calls.deliver(exotel(callId(), `0${caller}`));
    await calls.deliver({ headerKey: key, json: { call_id: callId(), caller_number: caller, called_number: projectNumber() } });
    await calls.deliver({ queryKey: `${key}x`, json: { call_id: callId(), caller_number: caller, called_number: number } });
    await calls.deliver({ headerKey: key, json: { call_id: callId(), caller_number: caller, called_number: number, direction: 'outbound' } });
    expect(calls.logs.map((line) => [line.endpoint, line.status, line.outcome])).toEqual([
      ['call', 200, 'created'],
      ['call', 200, 'call_number_not_connected'],
      ['call', 401, 'invalid_api_credentials'],
      ['call', 200, 'ignored'],
    ]);
    expect(calls.logs[0]).toMatchObject({ accountId: 'acc-ev', leadId: expect.any(String), keyId: expect.stringMatching(/^key_/) });
    for (const line of calls.logs.map((entry) => JSON.stringify(entry))) {
      expect(line).not.toContain(key);
      expect(line).not.toContain(key.slice(3, 20));
      expect(line).not.toContain(caller);
    }
  });
});
