/**
 * The call webhook's answers (CONTRACT.md section 13) through its handler against DynamoDB Local: each
 * provider's call becoming a lead, each way parameters arrive, each key case, and every call that
 * cannot become a lead answered 200 with a rejection record that says why.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { revokeKey } from '../../shared/domain/api-keys.ts';
import { uniqueMobile } from '../support/service.ts';
import { callId, callTestService, projectNumber, type CallTestService } from '../support/call-service.ts';

let calls: CallTestService;
let key: string;
let number: string;
const ACCOUNT = 'acc-calls';
const received = { status: true, message: 'Call received' };

beforeAll(async () => {
  calls = await callTestService({ configCacheTtlSeconds: 0 });
  await calls.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'], 'PRJ-OLD': ['CMP-OLD'] } });
  key = await calls.callsKey(ACCOUNT);
  number = projectNumber();
  await calls.connectNumber(ACCOUNT, number);
});

const leadOf = async (id: string) => (await calls.leadsOf(ACCOUNT, ['PRJ-1', 'PRJ-OLD'])).filter((lead) => lead.call_id === id);
const recordsOf = async (id: string) => (await calls.rejectionsOf(ACCOUNT)).filter((record) => record.call_id === id);

describe('Exotel Passthru (GET, the key in the query string)', () => {
  it('makes an answered call a lead with every call field, India time read as UTC', async () => {
    const id = callId();
    const mobile = uniqueMobile();
    const answer = await calls.deliver({
      provider: 'exotel',
      queryKey: key,
      query: {
        CallSid: id,
        CallFrom: `0${mobile}`,
        CallTo: `0${number}`,
        CallType: 'completed',
        DialCallDuration: '37',
        StartTime: '2026-11-22 21:10:05',
        RecordingUrl: 'https://recordings.exotel.com/rec.mp3',
        DialWhomNumber: '09123456789',
        Direction: 'incoming',
      },
    });
    expect(answer).toMatchObject({ status: 200, body: received });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expect(await leadOf(id)).toEqual([
      {
        id: expect.any(String),
        name: 'Unknown caller',
        mobile_number: mobile,
        projectID: 'PRJ-1',
        campaignID: 'CMP-1',
        source: 'call',
        sub_source: 'exotel',
        is_repeated: false,
        parent_lead_id: null,
        created_at: expect.any(String),
        call_id: id,
        call_number: number,
        call_outcome: 'answered',
        call_status: 'completed',
        call_duration_seconds: 37,
        call_started_at: '2026-11-22T15:40:05.000Z',
        call_recording_url: 'https://recordings.exotel.com/rec.mp3',
        call_agent_number: '9123456789',
      },
    ]);
  });

  it('makes a missed call a lead too, with its quoted values unwrapped', async () => {
    const id = callId();
    const mobile = uniqueMobile();
    await calls.deliver({ provider: 'exotel', queryKey: key, query: { CallSid: `"${id}"`, From: `"+91${mobile}"`, To: `"${number}"`, CallType: '"call-attempt"', DialCallDuration: '"0"' } });
    expect(await leadOf(id)).toEqual([expect.objectContaining({ mobile_number: mobile, call_outcome: 'missed', call_status: 'call-attempt', call_duration_seconds: 0 })]);
  });
});

describe('Knowlarity (POST JSON, the key in the header)', () => {
  it.each([
    [42, 'answered'],
    [0, 'missed'],
  ])('makes a call of %d seconds a lead, %s', async (duration, outcome) => {
    const id = callId();
    const mobile = uniqueMobile();
    const answer = await calls.deliver({
      provider: 'knowlarity',
      headerKey: key,
      json: { callid: id, caller_id: `+91${mobile}`, dispnumber: `+91${number}`, call_duration: duration, call_type: 'Inbound', start_time: '2026-11-22 09:00:00', resource_url: 'https://kl.example/r.wav', agent_number: '+919123456789' },
    });
    expect(answer).toMatchObject({ status: 200, body: received });
    expect(await leadOf(id)).toEqual([
      expect.objectContaining({
        mobile_number: mobile,
        sub_source: 'knowlarity',
        call_outcome: outcome,
        call_duration_seconds: duration,
        call_status: 'Inbound',
        call_started_at: '2026-11-22T03:30:00.000Z',
        call_recording_url: 'https://kl.example/r.wav',
        call_agent_number: '9123456789',
      }),
    ]);
  });
});

describe('generic (the neutral fields)', () => {
  it('makes a form-encoded call a lead, leaving out what it cannot read', async () => {
    const id = callId();
    const mobile = uniqueMobile();
    await calls.deliver({
      headerKey: key,
      form: { call_id: id, caller_number: mobile, called_number: number, status: 'busy', duration_seconds: '12.7', started_at: '2026-11-22T10:00:00', recording_url: 'http://insecure.example/r.mp3' },
    });
    const [lead] = await leadOf(id);
    expect(lead).toMatchObject({ sub_source: 'generic', call_status: 'busy', call_duration_seconds: 12 });
    expect(lead).not.toHaveProperty('call_outcome');
    expect(lead).not.toHaveProperty('call_started_at');
    expect(lead).not.toHaveProperty('call_recording_url');
    expect(lead).not.toHaveProperty('call_agent_number');
  });
});

describe('generic: the caller is caller_number, never the agent’s number', () => {
  it('makes the caller the lead’s mobile and the agent its call_agent_number', async () => {
    const id = callId();
    const caller = uniqueMobile();
    const agent = uniqueMobile();
    await calls.deliver({ headerKey: key, json: { call_id: id, caller_number: caller, agent_number: agent, called_number: number } });
    expect(await leadOf(id)).toEqual([expect.objectContaining({ mobile_number: caller, call_agent_number: agent })]);
  });

  it.each([
    ['a caller that is not an Indian mobile', { caller_number: '+1 202 555 0100' }],
    ['no caller at all', {}],
  ])('refuses %s even when the agent’s number is an Indian mobile: no lead for the agent', async (_case, callerField) => {
    const id = callId();
    const agent = uniqueMobile();
    expect(await calls.deliver({ headerKey: key, json: { call_id: id, ...callerField, agent_number: agent, called_number: number } })).toMatchObject({ status: 200, body: received });
    expect(await leadOf(id)).toEqual([]);
    expect((await calls.leadsOf(ACCOUNT)).filter((lead) => lead.mobile_number === agent)).toEqual([]);
    expect(await recordsOf(id)).toEqual([expect.objectContaining({ reason: 'validation', fields: { mobile_number: [expect.any(String)] } })]);
    expect((await recordsOf(id))[0]).not.toHaveProperty('mobile');
  });
});

describe('the caller', () => {
  it('reads a +91 caller as its 10 digits', async () => {
    const id = callId();
    const mobile = uniqueMobile();
    await calls.deliver({ headerKey: key, json: { call_id: id, caller_number: `+91 ${mobile.slice(0, 5)} ${mobile.slice(5)}`, called_number: `+91 ${number}` } });
    expect(await leadOf(id)).toEqual([expect.objectContaining({ mobile_number: mobile })]);
  });

  it.each([
    ['a landline-looking number', '011-2345-6789'],
    ['a withheld caller', 'anonymous'],
    ['a masked caller', '+91XXXXXXXXXX'],
    ['no caller at all', undefined],
  ])('refuses %s: 200, no lead, a validation record with the provider and call id', async (_case, caller) => {
    const id = callId();
    const answer = await calls.deliver({ headerKey: key, json: { call_id: id, called_number: number, ...(caller !== undefined && { caller_number: caller }) } });
    expect(answer).toMatchObject({ status: 200, body: received });
    expect(await leadOf(id)).toEqual([]);
    expect(await recordsOf(id)).toEqual([expect.objectContaining({ endpoint: 'call', provider: 'generic', call_id: id, reason: 'validation', fields: { mobile_number: [expect.any(String)] } })]);
  });
});

describe('what a refused caller leaves behind', () => {
  const masked = (record: object) => Object.values(record).filter((value) => typeof value === 'string' && /\*{6}\d{4}/.test(value));

  it('keeps no digit of a caller that is not an Indian mobile: no person reference names it, so no erasure could reach them', async () => {
    const id = callId();
    expect(await calls.deliver({ headerKey: key, json: { call_id: id, caller_number: '+1 202 555 0100', called_number: number } })).toMatchObject({ status: 200, body: received });
    const [record] = await recordsOf(id);
    expect(record).toMatchObject({ reason: 'validation', fields: { mobile_number: [expect.any(String)] } });
    expect(record).not.toHaveProperty('mobile');
    expect(masked(record!)).toEqual([]);
  });

  it('keeps the last four digits of an Indian caller, whom erasure by that mobile reaches', async () => {
    const id = callId();
    const mobile = uniqueMobile();
    const other = projectNumber();
    await calls.deliver({ headerKey: key, json: { call_id: id, caller_number: `+91 ${mobile}`, called_number: other } });
    expect(await recordsOf(id)).toEqual([expect.objectContaining({ reason: 'call_number_not_connected', mobile: `******${mobile.slice(-4)}` })]);
    expect(await calls.repository.people.erasePerson(ACCOUNT, { kind: 'mobile', value: mobile })).toMatchObject({ rejections: 1 });
    expect(await recordsOf(id)).toEqual([]);
  });
});

describe('calls that cannot become leads', () => {
  it('refuses a call to a number the account has not connected, whoever called: a call_number_not_connected record', async () => {
    const id = callId();
    const other = projectNumber();
    expect(await calls.deliver({ headerKey: key, json: { call_id: id, caller_number: 'anonymous', called_number: other } })).toMatchObject({ status: 200, body: received });
    expect(await recordsOf(id)).toEqual([expect.objectContaining({ endpoint: 'call', provider: 'generic', call_id: id, reason: 'call_number_not_connected', fields: { call_number: other } })]);
  });

  it('refuses a call without a call id as a validation record (which then has no call id)', async () => {
    const mobile = uniqueMobile();
    expect(await calls.deliver({ headerKey: key, json: { caller_number: mobile, called_number: number } })).toMatchObject({ status: 200, body: received });
    const records = (await calls.rejectionsOf(ACCOUNT)).filter((record) => record.mobile?.endsWith(mobile.slice(-4)) && record.fields.call_id);
    expect(records).toEqual([expect.objectContaining({ endpoint: 'call', provider: 'generic', reason: 'validation', fields: { call_id: ['call_id is required'] } })]);
    expect(records[0]).not.toHaveProperty('call_id');
  });

  it.each([
    ['no called number', undefined, 'call_number is required'],
    ['a called number of fewer than 10 digits', '1800', 'call_number must have at least 10 digits'],
  ])('refuses %s as a validation record', async (_case, called, problem) => {
    const id = callId();
    const json = { call_id: id, caller_number: uniqueMobile(), ...(called !== undefined && { called_number: called }) };
    expect(await calls.deliver({ headerKey: key, json })).toMatchObject({ status: 200, body: received });
    expect(await recordsOf(id)).toEqual([expect.objectContaining({ endpoint: 'call', reason: 'validation', fields: { call_number: [problem] } })]);
  });

  it('refuses a call to a number whose project was retired: a project_not_found record', async () => {
    const retired = projectNumber();
    await calls.connectNumber(ACCOUNT, retired, 'PRJ-OLD', 'CMP-OLD');
    await new AccountAdmin(calls.repository.accounts).retireProject(ACCOUNT, 'PRJ-OLD');
    const id = callId();
    expect(await calls.deliver({ headerKey: key, json: { call_id: id, caller_number: uniqueMobile(), called_number: retired } })).toMatchObject({ status: 200 });
    expect(await leadOf(id)).toEqual([]);
    expect(await recordsOf(id)).toEqual([expect.objectContaining({ reason: 'project_not_found', provider: 'generic', call_id: id })]);
  });

  it.each([
    ['exotel', { Direction: 'outbound-dial' }],
    ['knowlarity', { call_direction: 'outbound' }],
    ['generic', { direction: 'outbound' }],
  ])('ignores a %s call out: 200, nothing stored, nothing recorded', async (provider, direction) => {
    const id = callId();
    const fields: Record<string, Record<string, string>> = {
      exotel: { CallSid: id, CallFrom: uniqueMobile(), CallTo: number },
      knowlarity: { callid: id, caller_id: uniqueMobile(), dispnumber: number },
      generic: { call_id: id, caller_number: uniqueMobile(), called_number: number },
    };
    const before = (await calls.rejectionsOf(ACCOUNT)).length;
    expect(await calls.deliver({ provider, headerKey: key, form: { ...fields[provider]!, ...direction } })).toMatchObject({ status: 200, body: received });
    expect(await leadOf(id)).toEqual([]);
    expect(await calls.rejectionsOf(ACCOUNT)).toHaveLength(before);
  });
});

describe('how parameters arrive', () => {
  const fields = () => ({ call_id: callId(), caller_number: uniqueMobile(), called_number: number });

  it.each([
    ['the query string (GET)', (f: Record<string, string>) => ({ method: 'GET' as const, query: f })],
    ['the query string (POST without a body)', (f: Record<string, string>) => ({ method: 'POST' as const, query: f })],
    ['a form-encoded body', (f: Record<string, string>) => ({ form: f })],
    ['a JSON body', (f: Record<string, string>) => ({ json: f })],
  ])('reads %s', async (_case, shape) => {
    const f = fields();
    expect(await calls.deliver({ headerKey: key, ...shape(f) })).toMatchObject({ status: 200 });
    expect(await leadOf(f.call_id)).toEqual([expect.objectContaining({ mobile_number: f.caller_number })]);
  });

  it('lets a body member win over a query parameter of the same name', async () => {
    const f = fields();
    await calls.deliver({ headerKey: key, query: { ...f, caller_number: '9000000000', status: 'missed' }, json: { caller_number: f.caller_number } });
    expect(await leadOf(f.call_id)).toEqual([expect.objectContaining({ mobile_number: f.caller_number, call_outcome: 'missed' })]);
  });

  it.each([
    ['a body over 64 KiB', { rawBody: JSON.stringify({ pad: 'a'.repeat(65_536) }), headers: { 'content-type': 'application/json' } }, 413, 'Payload too large'],
    ['another content type', { rawBody: 'call_id=1', headers: { 'content-type': 'text/plain' } }, 415, 'Content-Type must be application/json'],
    ['malformed JSON', { rawBody: '{"call_id":', headers: { 'content-type': 'application/json' } }, 400, 'Malformed JSON body'],
    ['JSON that is not an object', { rawBody: '[1]', headers: { 'content-type': 'application/json' } }, 400, 'Request body must be a JSON object'],
  ])('answers %s with section 1’s answer, storing nothing', async (_case, parts, status, message) => {
    const before = (await calls.rejectionsOf(ACCOUNT)).length;
    expect(await calls.deliver({ headerKey: key, method: 'POST', ...parts })).toMatchObject({ status, body: { status: false, message } });
    expect(await calls.rejectionsOf(ACCOUNT)).toHaveLength(before);
  });

  it('refuses a call id longer than 200 characters with 400, storing nothing', async () => {
    const f = { ...fields(), call_id: 'c'.repeat(201) };
    const before = (await calls.rejectionsOf(ACCOUNT)).length;
    expect(await calls.deliver({ headerKey: key, json: f })).toMatchObject({ status: 400, body: { status: false, message: 'call_id must be at most 200 characters' } });
    expect(await calls.rejectionsOf(ACCOUNT)).toHaveLength(before);
    expect((await calls.leadsOf(ACCOUNT)).filter((lead) => lead.mobile_number === f.caller_number)).toEqual([]);
    const exactly = { ...fields(), call_id: 'c'.repeat(199) + 'x' };
    expect(await calls.deliver({ headerKey: key, json: exactly })).toMatchObject({ status: 200 });
    expect(await leadOf(exactly.call_id)).toHaveLength(1);
  });
});

describe('the key', () => {
  const f = () => ({ call_id: callId(), caller_number: uniqueMobile(), called_number: number });

  it('takes a calls key from the header or from ?key=, and the header’s when both are sent', async () => {
    const inHeader = f();
    expect(await calls.deliver({ headerKey: key, json: inHeader })).toMatchObject({ status: 200 });
    const inQuery = f();
    expect(await calls.deliver({ queryKey: key, json: inQuery })).toMatchObject({ status: 200 });
    const both = f();
    expect(await calls.deliver({ headerKey: key, queryKey: 'not-a-key', json: both })).toMatchObject({ status: 200 });
    expect(await calls.deliver({ headerKey: 'not-a-key', queryKey: key, json: f() })).toMatchObject({ status: 401, body: { message: 'Invalid API credentials' } });
    for (const delivery of [inHeader, inQuery, both]) expect(await leadOf(delivery.call_id)).toHaveLength(1);
  });

  it.each([
    ['a full key (all endpoints)', async () => calls.issueKey(ACCOUNT)],
    ['a key of other endpoints', async () => (await calls.issueScopedKey({ accountId: ACCOUNT, endpoints: ['website', 'social'] })).key],
    ['a key of one other endpoint alone (portala)', async () => (await calls.issueScopedKey({ accountId: ACCOUNT, endpoints: ['portala'] })).key],
  ])('refuses %s with 403, storing nothing', async (_case, makeKey) => {
    const delivery = f();
    expect(await calls.deliver({ queryKey: await makeKey(), json: delivery })).toMatchObject({ status: 403, body: { status: false, message: 'API key not allowed on this endpoint' } });
    expect(await leadOf(delivery.call_id)).toEqual([]);
    expect(await recordsOf(delivery.call_id)).toEqual([]);
  });

  it('accepts a key limited to calls alone, in the header or the query', async () => {
    const callsOnly = await calls.callsKey(ACCOUNT);
    const inHeader = f();
    const inQuery = f();
    expect(await calls.deliver({ headerKey: callsOnly, json: inHeader })).toMatchObject({ status: 200, body: received });
    expect(await calls.deliver({ queryKey: callsOnly, json: inQuery })).toMatchObject({ status: 200, body: received });
    for (const delivery of [inHeader, inQuery]) expect(await leadOf(delivery.call_id)).toHaveLength(1);
  });

  it('keeps a calls key off the lead endpoints (403)', async () => {
    const answer = await calls.call('website', { apiKey: key, body: { name: 'Asha', mobile_number: uniqueMobile(), projectID: 'PRJ-1', campaignID: 'CMP-1', sub_source: 'x' } });
    expect(answer).toMatchObject({ status: 403, body: { message: 'API key not allowed on this endpoint' } });
  });

  it.each([
    ['no key', undefined, 'API Key missing'],
    ['an empty key', '', 'API Key missing'],
    ['an unknown key', 'lk_unknown', 'Invalid API credentials'],
  ])('answers %s with 401', async (_case, queryKey, message) => {
    expect(await calls.deliver({ ...(queryKey !== undefined && { queryKey }), json: f() })).toMatchObject({ status: 401, body: { status: false, message } });
  });

  it('answers a revoked calls key 401', async () => {
    const revoked = await calls.callsKey(ACCOUNT);
    await revokeKey(calls.keyAdmin(), { key: revoked });
    expect(await calls.deliver({ queryKey: revoked, json: f() })).toMatchObject({ status: 401, body: { message: 'Invalid API credentials' } });
  });

  it('answers a key of an account that does not exist 404 Client not found, before its scope is looked at', async () => {
    const orphan = await calls.issueKey('acc-none');
    expect(await calls.deliver({ queryKey: orphan, json: f() })).toMatchObject({ status: 404, body: { message: 'Client not found' } });
  });
});

describe('the provider in the path', () => {
  it('answers an unknown provider 404 before the key is read', async () => {
    expect(await calls.deliver({ provider: 'myoperator', json: {} })).toMatchObject({ status: 404, body: { status: false, message: 'Unknown call provider' } });
    expect(await calls.deliver({ provider: 'Exotel', queryKey: 'not-a-key' })).toMatchObject({ status: 404, body: { message: 'Unknown call provider' } });
  });
});
