/**
 * What every declared lead source keeps, whatever it is (docs/adding-a-lead-source.md): one suite over
 * the registry (shared/sources/registry.ts), each source driven by test/support/source-drivers.ts. A
 * source's own test files keep only its mapping rules. Meta's asynchronous source is the exception:
 * its webhook only queues, so its exactly-once and outage proofs are its worker's (test/meta/).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { leadSources, requestSources } from '../../shared/sources/registry.ts';
import { healedBeforeEach, startFaultRelay, type FaultRelay } from '../support/fault-relay.ts';
import { uniqueMobile } from '../support/service.ts';
import { sourceDrivers, type SourceAccount, type SourceUnderTest } from '../support/source-drivers.ts';

/** Short, so a stalled database's 503 comes in well under the test's own timeout. */
const FUNCTION_TIMEOUT_MS = 5_000;

let relay: FaultRelay;
beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
});
afterAll(() => relay.close());
healedBeforeEach(() => relay);

let sequence = 0;
const deliveryId = (name: string) => `every-source-${name}-${Date.now().toString(36)}-${sequence++}`;

describe('the registry', () => {
  it('has a driver for every source that makes its lead in the request, so none escapes this suite', () => {
    expect(requestSources.map((source) => source.name).filter((name) => !sourceDrivers[name])).toEqual([]);
    // The asynchronous sources are the only ones left out, and each has a worker.
    expect(leadSources.filter((source) => !requestSources.includes(source)).every((source) => source.worker !== undefined)).toBe(true);
  });
});

describe.each(requestSources.map((source) => [source.name, source] as const))('the %s source', (name, source) => {
  let driven: SourceUnderTest;
  let account: SourceAccount;
  const accountId = `every-${name}`;
  const leadsOf = async (mobile: string) => (await driven.service.repository.leads.listLeads(accountId, ['PRJ-1'])).filter((lead) => lead.mobile_number === mobile);

  beforeAll(async () => {
    relay.heal();
    driven = await sourceDrivers[name]!(source, { endpoint: relay.endpoint, functionTimeoutMs: FUNCTION_TIMEOUT_MS });
    account = await driven.account(accountId);
  });

  it('answers a delivery with a wrong key 401 and stores nothing', async () => {
    const mobile = uniqueMobile();
    const answer = await account.deliver({ mobile, id: deliveryId(name), wrongKey: true });
    expect(answer.status).toBe(401);
    expect(answer.body.status).toBe(false);
    expect(await leadsOf(mobile)).toEqual([]);
  });

  it('accepts a delivery with its answer of acceptance and stores its lead with its source', async () => {
    const mobile = uniqueMobile();
    const answer = await account.deliver({ mobile, id: deliveryId(name) });
    expect(answer.status).toBe(source.acceptance.status);
    expect(answer.body).toMatchObject({ status: true, message: source.acceptance.message });
    expect('data' in answer.body).toBe(source.acceptance.withLead);
    const leads = await leadsOf(mobile);
    expect(leads.map((lead) => lead.source)).toEqual([source.leadSource]);
  });

  it('stores a redelivered lead once, answering both deliveries alike', async () => {
    const mobile = uniqueMobile();
    const id = deliveryId(name);
    const first = await account.deliver({ mobile, id });
    const again = await account.deliver({ mobile, id });
    expect([first.status, again.status]).toEqual([source.acceptance.status, source.acceptance.status]);
    expect(await leadsOf(mobile)).toHaveLength(1);
  });

  it('stores one lead for 10 simultaneous deliveries of one lead, each accepted at once or on its retry after a 503', async () => {
    const mobile = uniqueMobile();
    const id = deliveryId(name);
    const answers = await Promise.all(Array.from({ length: 10 }, () => account.deliver({ mobile, id })));
    // Writers racing on one item may run out of time retrying the conflict (503, retry later): never another answer.
    expect(answers.filter((answer) => answer.status !== source.acceptance.status && answer.status !== 503)).toEqual([]);
    expect(answers.some((answer) => answer.status === source.acceptance.status)).toBe(true);
    for (const answer of answers) {
      if (answer.status === 503) expect((await account.deliver({ mobile, id })).status).toBe(source.acceptance.status);
    }
    expect(await leadsOf(mobile)).toHaveLength(1);
  });

  it('answers 503 with Retry-After before the function times out when the database stalls, and the retry stores the lead once', async () => {
    const mobile = uniqueMobile();
    const id = deliveryId(name);
    relay.plan(() => ({ kind: 'stall' }));
    const started = performance.now();
    const during = await account.deliver({ mobile, id });
    const took = performance.now() - started;
    relay.heal();
    expect(during.status).toBe(503);
    expect(during.body).toEqual({ status: false, message: 'Service temporarily unavailable, please retry' });
    expect(during.headers['retry-after']).toBeDefined();
    expect(took).toBeLessThan(FUNCTION_TIMEOUT_MS);
    const retried = await account.deliver({ mobile, id });
    expect(retried.status).toBe(source.acceptance.status);
    expect(await leadsOf(mobile)).toHaveLength(1);
  });

  it("records a refused lead under its name and lets erasure reach the person's leads and rejection records", async () => {
    const mobile = uniqueMobile();
    expect((await account.deliver({ mobile, id: deliveryId(name) })).status).toBe(source.acceptance.status);
    // A second lead of the same person under `ignore` is refused, and its record names the person too.
    await account.deliver({ mobile, id: deliveryId(name) });
    const person = { kind: 'mobile', value: mobile } as const;
    const found = await driven.service.repository.people.findPerson(accountId, person);
    expect(found.leads).toHaveLength(1);
    expect(found.rejections).toHaveLength(1);
    // The record names its source as its descriptor does, with the platform's own id where it has one.
    expect(found.rejections[0]!.endpoint).toBe(source.name);
    if (source.platformId) expect(found.rejections[0]![source.platformId.field]).toEqual(expect.any(String));
    expect(await driven.service.repository.people.erasePerson(accountId, person)).toEqual({ leads: 1, rejections: 1, alternate_numbers: 0 });
    expect(await driven.service.repository.people.findPerson(accountId, person)).toEqual({ leads: [], rejections: [] });
  });

  it('never writes its key or a full mobile number in a log line', async () => {
    const mobile = uniqueMobile();
    await account.deliver({ mobile, id: deliveryId(name) });
    await account.deliver({ mobile, id: deliveryId(name), wrongKey: true });
    const lines = driven.service.logs.map((line) => JSON.stringify(line));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes(account.key))).toEqual([]);
    expect(lines.filter((line) => line.includes(mobile))).toEqual([]);
  });
});
