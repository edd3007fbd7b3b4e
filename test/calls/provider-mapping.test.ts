/**
 * The provider table (CONTRACT.md section 13), row by row, as pure functions: each provider's field
 * names and their fallbacks, the outcome, status, duration, start time, recording URL, agent's number
 * and direction rules, Exotel's quoted values, and the three ways parameters arrive.
 */
import { describe, expect, it } from '@jest/globals';
import { callLeadFieldsOf } from '../../shared/calls/call-lead.ts';
import { callDeliveryOf, indiaLocalTimeAsUtc, isoWithOffsetAsUtc, type CallParameters } from '../../shared/calls/delivery.ts';
import { callParametersOf } from '../../shared/calls/parameters.ts';
import { callProviderNamed, callProviders, type CallProvider } from '../../shared/calls/providers.ts';
import { apiGatewayEvent } from '../../shared/http/api-gateway-event.ts';

const provider = (name: string): CallProvider => callProviderNamed(name)!;
const read = (name: string, parameters: CallParameters) => callDeliveryOf(provider(name), parameters);

describe('the providers', () => {
  it('are exotel, knowlarity and generic; any other name is no provider', () => {
    expect(callProviders.map((p) => p.name)).toEqual(['exotel', 'knowlarity', 'generic']);
    expect(callProviderNamed('myoperator')).toBeUndefined();
    expect(callProviderNamed('Exotel')).toBeUndefined();
    expect(callProviderNamed(undefined)).toBeUndefined();
  });
});

describe('field names, and the name read when the first is absent', () => {
  const exotel = {
    CallSid: 'ex-1',
    CallFrom: '09876543210',
    CallTo: '08047181234',
    CallType: 'completed',
    DialCallDuration: '42',
    StartTime: '2026-11-25 21:05:09',
    RecordingUrl: 'https://recordings.exotel.com/ex-1.mp3',
    DialWhomNumber: '09123456789',
    Direction: 'incoming',
  };
  const knowlarity = {
    callid: 'kn-1',
    caller_id: '+919876543210',
    dispnumber: '+918047181234',
    call_duration: '42',
    call_type: 'answered',
    start_time: '2026-11-25 21:05:09',
    resource_url: 'https://kl-recordings.example/kn-1.wav',
    agent_number: '+919123456789',
    call_direction: 'inbound',
  };
  const generic = {
    call_id: 'ge-1',
    caller_number: '9876543210',
    called_number: '8047181234',
    status: 'answered',
    duration_seconds: '42',
    started_at: '2026-11-25T15:35:09Z',
    recording_url: 'https://calls.example/ge-1.mp3',
    agent_number: '9123456789',
    direction: 'inbound',
  };
  const expected = (callId: string, recordingUrl: string, status: string) => ({
    inbound: true,
    callId,
    callNumber: '8047181234',
    outcome: 'answered',
    status,
    durationSeconds: 42,
    startedAt: '2026-11-25T15:35:09.000Z',
    recordingUrl,
    agentNumber: '9123456789',
  });

  it.each([
    ['exotel', exotel, expected('ex-1', exotel.RecordingUrl, 'completed')],
    ['knowlarity', knowlarity, expected('kn-1', knowlarity.resource_url, 'answered')],
    ['generic', generic, expected('ge-1', generic.recording_url, 'answered')],
  ])('reads every field of %s', (name, parameters, call) => {
    expect(read(name, parameters)).toMatchObject({ provider: name, ...call });
  });

  it.each([
    ['exotel', { CallSid: 'ex-2', From: '9876543210', To: '8047181234', DialCallStatus: 'no-answer' }, { caller: '9876543210', calledNumber: '8047181234', status: 'no-answer' }],
    ['knowlarity', { uuid: 'kn-2', caller_id: '9876543210', dispnumber: '8047181234', hangup_cause: 'NORMAL_CLEARING' }, { callId: 'kn-2', status: 'NORMAL_CLEARING' }],
  ])('reads %s fallbacks when the first name is absent', (name, parameters, fields) => {
    expect(read(name, parameters)).toMatchObject(fields);
  });

  it("reads Knowlarity's call events by the names its events carry: customer_number, knowlarity_number or k_number, uuid", () => {
    const event = { uuid: 'kn-9', customer_number: '+919876543210', knowlarity_number: '+918047181234', call_duration: '17', start_time: '2025-12-06 11:11:21+05:30' };
    expect(read('knowlarity', event)).toMatchObject({ callId: 'kn-9', caller: '+919876543210', callNumber: '8047181234', outcome: 'answered', durationSeconds: 17, startedAt: '2025-12-06T05:41:21.000Z' });
    expect(read('knowlarity', { uuid: 'kn-10', customer_number: '9876543210', k_number: '08047181234' })).toMatchObject({ caller: '9876543210', callNumber: '8047181234' });
    expect(read('knowlarity', { caller_id: '9000000000', customer_number: '9876543210', dispnumber: '8047181234', k_number: '8000000000' })).toMatchObject({ caller: '9000000000', callNumber: '8047181234' });
  });

  it("takes Exotel's status word from DialCallStatus first: CallType says incomplete for a hang-up, a busy line and no answer alike", () => {
    expect(read('exotel', { CallType: 'incomplete', DialCallStatus: 'busy' })).toMatchObject({ status: 'busy', outcome: 'missed' });
    expect(read('exotel', { CallType: 'incomplete', DialCallStatus: 'no-answer' })).toMatchObject({ status: 'no-answer', outcome: 'missed' });
    expect(read('exotel', { CallType: 'completed', DialCallStatus: 'completed' })).toMatchObject({ status: 'completed', outcome: 'answered' });
    expect(read('exotel', { CallType: 'incomplete' })).toMatchObject({ status: 'incomplete', outcome: 'missed' });
  });

  it('prefers the first name when both are sent, and reads an empty first as absent', () => {
    expect(read('exotel', { CallFrom: '9876543210', From: '9000000000' }).caller).toBe('9876543210');
    expect(read('exotel', { CallFrom: '  ', From: '9000000000' }).caller).toBe('9000000000');
    expect(read('knowlarity', { callid: 'a', uuid: 'b' }).callId).toBe('a');
  });
});

describe("Exotel's quoted values", () => {
  it('unwraps double quotes and trims what is inside', () => {
    const call = read('exotel', { CallSid: '"ex-3"', CallFrom: '" 09876543210 "', CallTo: '"08047181234"', CallType: '"completed"', Direction: '"incoming"' });
    expect(call).toMatchObject({ callId: 'ex-3', caller: '09876543210', callNumber: '8047181234', outcome: 'answered', inbound: true });
  });

  it('leaves quotes alone for providers that do not quote', () => {
    expect(read('generic', { call_id: '"ge-3"' }).callId).toBe('"ge-3"');
  });
});

describe('the outcome', () => {
  it.each([
    ['exotel', { CallType: 'completed' }, 'answered'],
    ['exotel', { CallType: 'Completed' }, 'answered'],
    ['exotel', { CallType: 'call-attempt' }, 'missed'],
    ['exotel', { CallType: 'client-hangup' }, 'missed'],
    ['exotel', { CallType: 'incomplete' }, 'missed'],
    ['knowlarity', { call_duration: '1' }, 'answered'],
    ['knowlarity', { call_duration: '0' }, 'missed'],
    ['generic', { status: 'answered' }, 'answered'],
    ['generic', { status: 'missed' }, 'missed'],
  ])('%s %j is %s', (name, parameters, outcome) => {
    expect(read(name, parameters).outcome).toBe(outcome);
  });

  it.each([
    ['exotel', { DialCallStatus: 'completed' }],
    ['knowlarity', {}],
    ['knowlarity', { call_duration: 'unknown' }],
    ['generic', { status: 'busy' }],
    ['generic', {}],
  ])('is left out when %s sends nothing that decides it: %j', (name, parameters) => {
    expect(read(name, parameters)).not.toHaveProperty('outcome');
  });
});

describe('status, duration, start time, recording and agent', () => {
  it('keeps the status word to 50 characters', () => {
    expect(read('generic', { status: 'x'.repeat(80) }).status).toBe('x'.repeat(50));
  });

  it.each([
    ['42', 42],
    ['42.9', 42],
    ['0', 0],
    [' 7 ', 7],
  ])('reads a duration of %j as %d whole seconds, rounded down', (text, seconds) => {
    expect(read('generic', { duration_seconds: text }).durationSeconds).toBe(seconds);
  });

  it.each(['-3', 'abc', '1e3', ''])('leaves out a duration of %j', (text) => {
    expect(read('generic', { duration_seconds: text })).not.toHaveProperty('durationSeconds');
  });

  it('reads India time as UTC, five and a half hours earlier, across a day', () => {
    expect(indiaLocalTimeAsUtc('2026-11-25 21:05:09')).toBe('2026-11-25T15:35:09.000Z');
    expect(indiaLocalTimeAsUtc('2026-01-01 02:00:00')).toBe('2025-12-31T20:30:00.000Z');
    expect(read('knowlarity', { start_time: '2026-03-01 05:29:59' }).startedAt).toBe('2026-02-28T23:59:59.000Z');
  });

  it('reads a time with an offset (Knowlarity events) by its offset, fractions of a second dropped', () => {
    expect(indiaLocalTimeAsUtc('2025-12-06 11:11:21+05:30')).toBe('2025-12-06T05:41:21.000Z');
    expect(indiaLocalTimeAsUtc('2025-12-06 11:11:21.123456+05:30')).toBe('2025-12-06T05:41:21.000Z');
    expect(indiaLocalTimeAsUtc('2025-12-06 05:41:21Z')).toBe('2025-12-06T05:41:21.000Z');
    expect(indiaLocalTimeAsUtc('2025-12-06 01:11:21-0430')).toBe('2025-12-06T05:41:21.000Z');
    expect(indiaLocalTimeAsUtc('2025-12-06 11:11:21+15:00')).toBeUndefined();
    expect(indiaLocalTimeAsUtc('2025-12-06 11:11:21+05:75')).toBeUndefined();
  });

  it.each(['2026-02-30 10:00:00', '2026-11-25 24:00:00', '25/11/2026 10:00:00', '2026-11-25'])('leaves out an India time that is not one: %j', (text) => {
    expect(indiaLocalTimeAsUtc(text)).toBeUndefined();
  });

  it('reads a generic start as ISO-8601 with its offset, and leaves out one without an offset', () => {
    expect(isoWithOffsetAsUtc('2026-11-25T21:05:09+05:30')).toBe('2026-11-25T15:35:09.000Z');
    expect(isoWithOffsetAsUtc('2026-11-25T15:35:09.250Z')).toBe('2026-11-25T15:35:09.250Z');
    expect(isoWithOffsetAsUtc('2026-11-25T15:35:09')).toBeUndefined();
    expect(isoWithOffsetAsUtc('2026-11-25 21:05:09')).toBeUndefined();
  });

  it('keeps an https recording URL of up to 2,000 characters, as sent, and leaves out anything else', () => {
    const long = `https://r.example/${'a'.repeat(2000 - 'https://r.example/'.length)}`;
    expect(read('generic', { recording_url: long }).recordingUrl).toBe(long);
    expect(read('generic', { recording_url: `${long}a` })).not.toHaveProperty('recordingUrl');
    expect(read('generic', { recording_url: 'http://r.example/a.mp3' })).not.toHaveProperty('recordingUrl');
    expect(read('generic', { recording_url: 'javascript:alert(1)' })).not.toHaveProperty('recordingUrl');
    expect(read('generic', { recording_url: 'not a url' })).not.toHaveProperty('recordingUrl');
  });

  it("keeps the agent's number as its last 10 digits, and leaves out a shorter one", () => {
    expect(read('exotel', { DialWhomNumber: '+91 91234 56789' }).agentNumber).toBe('9123456789');
    expect(read('exotel', { DialWhomNumber: '101' })).not.toHaveProperty('agentNumber');
  });
});

describe('direction', () => {
  it.each([
    ['exotel', {}, true],
    ['exotel', { Direction: 'incoming' }, true],
    ['exotel', { Direction: 'outbound-dial' }, false],
    ['exotel', { Direction: 'outbound-api' }, false],
    ['knowlarity', { call_direction: 'inbound' }, true],
    ['knowlarity', { call_direction: 'outbound' }, false],
    ['generic', { direction: 'inbound' }, true],
    ['generic', { direction: 'outbound' }, false],
  ])('%s %j is a call in: %s', (name, parameters, inbound) => {
    expect(read(name, parameters).inbound).toBe(inbound);
  });
});

describe('the lead a call becomes', () => {
  it('is an Unknown caller with the caller as mobile, the number’s project and campaign, and each call field when known', () => {
    const call = read('exotel', { CallSid: 'ex-9', CallFrom: '+91 98765 43210', CallTo: '080-4718-1234', CallType: 'completed', DialCallDuration: '5' });
    expect(callLeadFieldsOf(call, { projectId: 'PRJ-1', campaignId: 'CMP-1' })).toEqual({
      name: 'Unknown caller',
      mobile_number: '+91 98765 43210',
      projectID: 'PRJ-1',
      campaignID: 'CMP-1',
      call_id: 'ex-9',
      call_number: '8047181234',
      call_outcome: 'answered',
      call_status: 'completed',
      call_duration_seconds: '5',
    });
  });
});

describe('parameters, however they arrive', () => {
  const event = (parts: { query?: string; body?: string; contentType?: string; method?: string }) =>
    apiGatewayEvent({
      method: parts.method ?? 'POST',
      path: '/api/call-lead-webhook/generic',
      rawQueryString: parts.query ?? '',
      headers: parts.contentType === undefined ? {} : { 'content-type': parts.contentType },
      ...(parts.body !== undefined && { body: parts.body }),
    });
  const options = { maxBytes: 65_536 };

  it('reads the query string, a form body and a JSON body alike', () => {
    const expected = { call_id: 'c 1', caller_number: '+919876543210' };
    expect(callParametersOf(event({ method: 'GET', query: 'call_id=c+1&caller_number=%2B919876543210' }), options)).toEqual(expected);
    expect(callParametersOf(event({ body: 'call_id=c+1&caller_number=%2B919876543210', contentType: 'application/x-www-form-urlencoded; charset=utf-8' }), options)).toEqual(expected);
    expect(callParametersOf(event({ body: '{"call_id":"c 1","caller_number":"+919876543210"}', contentType: 'application/json' }), options)).toEqual(expected);
  });

  it('lets a body member win over a query parameter of the same name, and keeps the rest of both', () => {
    const parameters = callParametersOf(event({ query: 'call_id=from-query&status=missed', body: '{"call_id":"from-body"}', contentType: 'application/json' }), options);
    expect(parameters).toEqual({ call_id: 'from-body', status: 'missed' });
  });

  it('reads JSON numbers as written and booleans as words, and skips nulls, objects and arrays', () => {
    const parameters = callParametersOf(event({ body: '{"call_duration":42,"caller_id":919876543210,"a":true,"b":null,"c":{},"d":[1]}', contentType: 'application/json' }), options);
    expect(parameters).toEqual({ call_duration: '42', caller_id: '919876543210', a: 'true' });
  });

  it('never keeps the key as a parameter', () => {
    expect(callParametersOf(event({ method: 'GET', query: 'key=secret&call_id=c1' }), options)).toEqual({ call_id: 'c1' });
  });

  it('reads a JSON object a provider wraps in one form field, when its row names that field', () => {
    const body = `data=${encodeURIComponent('{"call_id":"w-1","status":"missed"}')}&extra=1`;
    const parameters = callParametersOf(event({ body, contentType: 'application/x-www-form-urlencoded' }), { ...options, jsonFormField: 'data' });
    expect(parameters).toMatchObject({ call_id: 'w-1', status: 'missed', extra: '1' });
  });

  it.each([
    ['a body over 64 KiB', { body: `call_id=${'a'.repeat(65_536)}`, contentType: 'application/x-www-form-urlencoded' }, 413],
    ['any other content type', { body: 'call_id=1', contentType: 'text/plain' }, 415],
    ['malformed JSON', { body: '{"call_id":', contentType: 'application/json' }, 400],
    ['JSON that is not an object', { body: '["call_id"]', contentType: 'application/json' }, 400],
  ])('refuses %s with section 1’s answer', (_case, parts, status) => {
    expect(() => callParametersOf(event(parts), options)).toThrow(expect.objectContaining({ status }) as unknown as Error);
  });
});
