/**
 * Each calls key's own bound on its deliveries per minute (docs/reference.md, "Calls"), through the
 * webhook's handler against DynamoDB Local: a flood from one key is answered 429 with Retry-After and
 * the contract's envelope, storing nothing, while another tenant's key goes on being answered 200;
 * requests without a key, with a key that is not a calls key, or that write nothing count against no
 * key's bound. The route's throttle in API Gateway is only the platform's safety net above it.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { callRequestsPerKeyPerMinuteFromEnvironment } from '../../shared/calls/runtime.ts';
import { uniqueMobile } from '../support/service.ts';
import { callId, callTestService, callWebhookOn, projectNumber, type CallTestService } from '../support/call-service.ts';

const PER_MINUTE = 3;
// The webhook's clock, moved by the tests: 20 s into a minute, so its Retry-After is 40.
let clock = Date.parse('2026-11-27T10:15:20.000Z');
let calls: CallTestService;
const number = projectNumber();
const received = { status: true, message: 'Call received' };
const tooMany = { status: false, message: 'Too many requests for this API key, please retry' };

beforeAll(async () => {
  calls = await callTestService({ callRequestsPerKeyPerMinute: PER_MINUTE, now: () => new Date(clock) });
  for (const account of ['acc-flooder', 'acc-quiet']) {
    await calls.seedAccount({ id: account, projects: { 'PRJ-1': ['CMP-1'] } });
    await calls.connectNumber(account, number);
  }
});

const nextMinute = () => {
  clock = (Math.floor(clock / 60_000) + 1) * 60_000 + 20_000;
};
const aCall = () => ({ call_id: callId(), caller_number: uniqueMobile(), called_number: number });
const stored = async (accountId: string, delivery: { call_id: string }) => ({
  leads: (await calls.leadsOf(accountId)).filter((lead) => lead.call_id === delivery.call_id).length,
  records: (await calls.rejectionsOf(accountId)).filter((record) => record.call_id === delivery.call_id).length,
});

describe("a calls key's deliveries per minute", () => {
  it("answers one key's flood 429 with Retry-After past its bound, storing nothing, while another tenant's key is answered 200", async () => {
    nextMinute();
    const flooder = await calls.callsKey('acc-flooder');
    const quiet = await calls.callsKey('acc-quiet');
    for (let i = 0; i < PER_MINUTE; i++) expect(await calls.deliver({ queryKey: flooder, json: aCall() })).toMatchObject({ status: 200, body: received });

    const refused = aCall();
    const answer = await calls.deliver({ queryKey: flooder, json: refused });
    expect(answer).toMatchObject({ status: 429, body: tooMany });
    expect(answer.headers['retry-after']).toBe('40');
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expect(await stored('acc-flooder', refused)).toEqual({ leads: 0, records: 0 });

    const fromQuiet = aCall();
    expect(await calls.deliver({ queryKey: quiet, json: fromQuiet })).toMatchObject({ status: 200, body: received });
    expect(await stored('acc-quiet', fromQuiet)).toEqual({ leads: 1, records: 0 });
  });

  it('refuses the rest of a full minute from the container’s memory, with no database request, and counts again the next minute', async () => {
    nextMinute();
    const flooder = await calls.callsKey('acc-flooder');
    for (let i = 0; i < PER_MINUTE; i++) await calls.deliver({ queryKey: flooder, json: aCall() });
    expect(await calls.deliver({ queryKey: flooder, json: aCall() })).toMatchObject({ status: 429 });
    calls.roundTrips.reset();
    expect(await calls.deliver({ queryKey: flooder, json: aCall() })).toMatchObject({ status: 429 });
    expect(calls.roundTrips.commands()).toEqual([]);

    nextMinute();
    const later = aCall();
    expect(await calls.deliver({ queryKey: flooder, json: later })).toMatchObject({ status: 200, body: received });
    expect(await stored('acc-flooder', later)).toEqual({ leads: 1, records: 0 });
  });

  it('lets each key of one account have its own bound', async () => {
    nextMinute();
    const first = await calls.callsKey('acc-flooder');
    const second = await calls.callsKey('acc-flooder');
    for (let i = 0; i < PER_MINUTE; i++) await calls.deliver({ queryKey: first, json: aCall() });
    expect(await calls.deliver({ queryKey: first, json: aCall() })).toMatchObject({ status: 429 });
    expect(await calls.deliver({ headerKey: second, json: aCall() })).toMatchObject({ status: 200 });
  });
});

describe('what the bound costs', () => {
  // A bound of 20: each container admits 2 deliveries of a key per minute on its own share.
  const BOUND = 20;
  const containerOf = () => callWebhookOn(calls, { callRequestsPerKeyPerMinute: BOUND, now: () => new Date(clock) });
  const updates = () => calls.roundTrips.commands().filter((command) => command === 'UpdateItemCommand').length;

  it("costs a key's first deliveries of a minute in a container no request, and counts them all once it is past its share", async () => {
    nextMinute();
    const container = containerOf();
    const key = await calls.callsKey('acc-quiet');
    calls.roundTrips.reset();
    for (let i = 0; i < 2; i++) expect(await container.deliver({ queryKey: key, json: aCall() })).toMatchObject({ status: 200 });
    expect(updates()).toBe(0);
    expect(await container.deliver({ queryKey: key, json: aCall() })).toMatchObject({ status: 200 });
    expect(updates()).toBe(1);
    // The shared counter holds the three: 17 more are admitted, the 21st is refused.
    for (let i = 0; i < BOUND - 3; i++) expect(await container.deliver({ queryKey: key, json: aCall() })).toMatchObject({ status: 200 });
    expect(await container.deliver({ queryKey: key, json: aCall() })).toMatchObject({ status: 429 });
  });

  it('bounds a key spread over two containers at the bound and one share more', async () => {
    nextMinute();
    const containers = [containerOf(), containerOf()];
    const key = await calls.callsKey('acc-quiet');
    const statuses: number[] = [];
    for (let i = 0; i < 2 * BOUND; i++) statuses.push((await containers[i % 2]!.deliver({ queryKey: key, json: aCall() })).status);
    const admitted = statuses.filter((status) => status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(BOUND);
    expect(admitted).toBeLessThanOrEqual(BOUND + 2);
    expect(statuses.filter((status) => status !== 200).every((status) => status === 429)).toBe(true);
  });
});

describe('what counts against no key’s bound', () => {
  it('refuses requests without a key, with an unknown key or with a key not limited to calls before any write, and leaves every calls key its whole bound', async () => {
    nextMinute();
    const quiet = await calls.callsKey('acc-quiet');
    const portalKey = (await calls.issueScopedKey({ accountId: 'acc-quiet', endpoints: ['portala'] })).key;
    calls.roundTrips.reset();
    for (let i = 0; i < 2 * PER_MINUTE; i++) {
      expect(await calls.deliver({ json: aCall() })).toMatchObject({ status: 401, body: { message: 'API Key missing' } });
      expect(await calls.deliver({ queryKey: `lk_unknown_${i}`, json: aCall() })).toMatchObject({ status: 401, body: { message: 'Invalid API credentials' } });
      expect(await calls.deliver({ queryKey: portalKey, json: aCall() })).toMatchObject({ status: 403 });
    }
    // Reads of the keys asked for, and not one write.
    expect(calls.roundTrips.commands().filter((command) => command !== 'GetItemCommand' && command !== 'QueryCommand')).toEqual([]);
    for (let i = 0; i < PER_MINUTE; i++) expect(await calls.deliver({ queryKey: quiet, json: aCall() })).toMatchObject({ status: 200 });
    expect(await calls.deliver({ queryKey: quiet, json: aCall() })).toMatchObject({ status: 429 });
  });

  it('does not count what writes nothing: a body that cannot be read, or a call out', async () => {
    nextMinute();
    const quiet = await calls.callsKey('acc-quiet');
    for (let i = 0; i < 2 * PER_MINUTE; i++) {
      expect(await calls.deliver({ queryKey: quiet, method: 'POST', rawBody: '{"call_id":', headers: { 'content-type': 'application/json' } })).toMatchObject({ status: 400 });
      expect(await calls.deliver({ queryKey: quiet, json: { ...aCall(), direction: 'outbound' } })).toMatchObject({ status: 200, body: received });
    }
    for (let i = 0; i < PER_MINUTE; i++) expect(await calls.deliver({ queryKey: quiet, json: aCall() })).toMatchObject({ status: 200 });
    expect(await calls.deliver({ queryKey: quiet, json: aCall() })).toMatchObject({ status: 429 });
  });
});

describe('the bound’s setting for npm start and the deployed function (CALL_REQUESTS_PER_KEY_PER_MINUTE)', () => {
  it('is 300 when unset, and a whole number of 1 or more when set', () => {
    expect(callRequestsPerKeyPerMinuteFromEnvironment({})).toBe(300);
    expect(callRequestsPerKeyPerMinuteFromEnvironment({ CALL_REQUESTS_PER_KEY_PER_MINUTE: '45' })).toBe(45);
    for (const bad of ['0', '-3', '2.5', 'many']) expect(() => callRequestsPerKeyPerMinuteFromEnvironment({ CALL_REQUESTS_PER_KEY_PER_MINUTE: bad })).toThrow('CALL_REQUESTS_PER_KEY_PER_MINUTE');
  });
});
