/**
 * Exotel's Passthru requests and Knowlarity's call events as the providers publish them (CONTRACT.md
 * sections 13 and 20), each through the call webhook's handler against DynamoDB Local: its answer, what
 * it stored, every mapped field. Exotel's status word is DialCallStatus's (CallType says `incomplete`
 * for a busy line and no answer alike); Knowlarity's caller is `customer_number`, its number
 * `knowlarity_number` or `k_number`, its call id `uuid`, its times carry an offset.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { callTestService, type CallTestService } from '../support/call-service.ts';
import { shapeOf, shapesOf } from './shapes.ts';

let calls: CallTestService;
let key: string;
const ACCOUNT = 'acc-call-shapes';

beforeAll(async () => {
  calls = await callTestService();
  await calls.seedAccount({ id: ACCOUNT, duplicateSetting: 'create', projects: { 'PRJ-1': ['CMP-1'] } });
  await calls.connectNumber(ACCOUNT, '8047181240');
  await calls.connectNumber(ACCOUNT, '8047181250');
  key = await calls.callsKey(ACCOUNT);
});

const RECEIVED = { status: 200, body: { status: true, message: 'Call received' } };
const storedFor = async (callId: string) => ({
  leads: (await calls.leadsOf(ACCOUNT)).filter((lead) => lead.call_id === callId),
  records: (await calls.rejectionsOf(ACCOUNT)).filter((record) => record.call_id === callId),
});
const callLead = (provider: string, mobile: string, callNumber: string) => ({
  name: 'Unknown caller',
  mobile_number: mobile,
  source: 'call',
  sub_source: provider,
  projectID: 'PRJ-1',
  campaignID: 'CMP-1',
  call_number: callNumber,
});

describe("Exotel's Passthru requests, as its applet sends them (a GET of query parameters)", () => {
  const passthru = async (name: string) => {
    const { parameters } = shapeOf('exotel', name);
    const answer = await calls.deliver({ provider: 'exotel', query: parameters, headerKey: key });
    return { answer, parameters, ...(await storedFor(parameters.CallSid)) };
  };

  it('are each run by a test here', () => {
    expect(shapesOf('exotel')).toEqual(['busy', 'incoming-answered', 'missed', 'outbound']);
  });

  it('an answered incoming call is a lead with its outcome, status, duration, start, recording and agent', async () => {
    const { answer, parameters, leads, records } = await passthru('incoming-answered');
    expect(answer).toMatchObject(RECEIVED);
    expect(records).toEqual([]);
    expect(leads).toEqual([
      expect.objectContaining({
        ...callLead('exotel', '9876500301', '8047181240'),
        call_id: parameters.CallSid,
        call_outcome: 'answered',
        call_status: 'completed',
        call_duration_seconds: 95,
        call_started_at: '2025-12-06T05:41:21.000Z',
        call_recording_url: parameters.RecordingUrl,
        call_agent_number: '9123400001',
      }),
    ]);
  });

  it.each([
    ['missed', '9876500302', 'no-answer'],
    ['busy', '9876500303', 'busy'],
  ])('a %s call is a missed lead whose status is DialCallStatus’s word, without a recording', async (name, mobile, status) => {
    const { answer, parameters, leads } = await passthru(name);
    expect(answer).toMatchObject(RECEIVED);
    expect(leads).toEqual([expect.objectContaining({ ...callLead('exotel', mobile, '8047181240'), call_id: parameters.CallSid, call_outcome: 'missed', call_status: status, call_duration_seconds: 0 })]);
    expect(leads[0]).not.toHaveProperty('call_recording_url');
  });

  it('an outbound call is acknowledged and stores nothing, not even a record', async () => {
    const { answer, leads, records } = await passthru('outbound');
    expect(answer).toMatchObject(RECEIVED);
    expect({ leads, records }).toEqual({ leads: [], records: [] });
  });
});

describe("Knowlarity's call events, as its Hook API posts them (a JSON body)", () => {
  const event = async (name: string) => {
    const { event: body } = shapeOf('knowlarity', name);
    const answer = await calls.deliver({ provider: 'knowlarity', json: body, headerKey: key });
    return { answer, body, ...(await storedFor(body.uuid)) };
  };

  it('are each run by a test here', () => {
    expect(shapesOf('knowlarity')).toEqual(['answered', 'missed']);
  });

  it('an answered call (customer_number, knowlarity_number, uuid, an offset time) is a lead with every mapped field', async () => {
    const { answer, body, leads, records } = await event('answered');
    expect(answer).toMatchObject(RECEIVED);
    expect(records).toEqual([]);
    expect(leads).toEqual([
      expect.objectContaining({
        ...callLead('knowlarity', '9876500401', '8047181250'),
        call_id: body.uuid,
        call_outcome: 'answered',
        call_status: 'answered',
        call_duration_seconds: 42,
        call_started_at: '2025-12-06T05:41:21.000Z',
        call_recording_url: body.resource_url,
        call_agent_number: '9123400002',
      }),
    ]);
  });

  it('a missed call (k_number, a duration of 0, hangup_cause, fractions of a second) is a missed lead', async () => {
    const { answer, body, leads } = await event('missed');
    expect(answer).toMatchObject(RECEIVED);
    expect(leads).toEqual([
      expect.objectContaining({
        ...callLead('knowlarity', '9876500402', '8047181250'),
        call_id: body.uuid,
        call_outcome: 'missed',
        call_status: 'NO_ANSWER',
        call_duration_seconds: 0,
        call_started_at: '2025-12-06T15:35:09.000Z',
      }),
    ]);
  });
});
