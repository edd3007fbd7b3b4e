/**
 * What every declared lead source keeps, whatever it is (docs/adding-a-lead-source.md): one suite over
 * the registry (shared/sources/registry.ts), each source driven by test/support/source-drivers.ts. A
 * source's own test files keep only its mapping rules and its own specifics.
 *
 * An asynchronous source (a descriptor with a `worker`: Meta's) keeps the same promises behind its
 * queue: its webhook answers at once, the suite waits for the queue to settle, and when the database
 * stalls it is the worker's receive that gives up in time and the queue's next receive that stores
 * the lead, where a request source answers 503 and its sender retries.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';
import { leadSources } from '../../shared/sources/registry.ts';
import { timedWithStalls } from '../support/event-loop.ts';
import { healedBeforeEach, heldTogether, startFaultRelay, type FaultRelay, type RelayPlan } from '../support/fault-relay.ts';
import { uniqueMobile, untilAnswered, type Answer } from '../support/service.ts';
import { sourceDrivers, type SourceAccount, type SourceUnderTest } from '../support/source-drivers.ts';

/** Short, so a stalled database's 503 comes in well under the test's own timeout. */
const FUNCTION_TIMEOUT_MS = 3_000;
const UNAVAILABLE = { status: false, message: 'Service temporarily unavailable, please retry' };

let relay: FaultRelay;
beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
});
healedBeforeEach(() => relay);

let sequence = 0;
const deliveryId = (name: string) => `every-source-${name}-${Date.now().toString(36)}-${sequence++}`;

/** The database stalls: every request, or only the lead's write (the reads before it answered). */
const stalls: readonly (readonly [string, RelayPlan])[] = [
  ['every request', () => ({ kind: 'stall' })],
  ['the lead write', (request) => (request.operation === 'TransactWriteItems' ? { kind: 'stall' } : undefined)],
];

describe('the registry', () => {
  it('has a driver for every source, so none escapes this suite', () => {
    expect(leadSources.map((source) => source.name).filter((name) => !sourceDrivers[name])).toEqual([]);
  });
});

describe.each(leadSources.map((source) => [source.name, source] as const))('the %s source', (name, source: LeadSourceDescriptor) => {
  let driven: SourceUnderTest;
  let account: SourceAccount;
  const accountId = `every-${name}`;
  const leadsOf = async (mobile: string, of = accountId) =>
    (await driven.service.repository.leadArchive.listLeads(of, ['PRJ-1'])).filter((lead) => lead.mobile_number === mobile);
  const recordsOf = async (mobile: string, of = accountId) =>
    (await driven.service.repository.people.findPerson(of, { kind: 'mobile', value: mobile })).rejections;
  /** Delivers, and waits for whatever the source does behind its answer. */
  const delivered = async (to: SourceAccount, delivery: Parameters<SourceAccount['deliver']>[0]) => {
    const answer = await to.deliver(delivery);
    await driven.settled();
    return answer;
  };
  /** Its answer of acceptance, exactly: status, message, and the lead in `data` or nothing more. */
  const expectAccepted = (answer: Answer) => {
    expect(answer.status).toBe(source.acceptance.status);
    expect(answer.body).toMatchObject({ status: true, message: source.acceptance.message });
    expect(Object.keys(answer.body).sort()).toEqual(source.acceptance.withLead ? ['data', 'message', 'status'] : ['message', 'status']);
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  };

  beforeAll(async () => {
    relay.heal();
    driven = await sourceDrivers[name]!(source, { endpoint: relay.endpoint, functionTimeoutMs: FUNCTION_TIMEOUT_MS });
    account = await driven.account(accountId);
  });
  afterAll(async () => {
    await driven?.close();
  });

  it('answers a delivery with a wrong key 401 and stores nothing, not even a record', async () => {
    const mobile = uniqueMobile();
    const answer = await delivered(account, { mobile, id: deliveryId(name), wrongKey: true });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ status: false, message: driven.refusal.message });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expect(await leadsOf(mobile)).toEqual([]);
    expect(await recordsOf(mobile)).toEqual([]);
  });

  it('accepts a delivery with its answer of acceptance and stores its lead with its source and platform id', async () => {
    const mobile = uniqueMobile();
    const id = deliveryId(name);
    expectAccepted(await delivered(account, { mobile, id }));
    const leads = await leadsOf(mobile);
    expect(leads.map((lead) => lead.source)).toEqual([source.leadSource]);
    if (source.platformId) expect(leads[0]![source.platformId.field as keyof (typeof leads)[0]]).toBe(id);
  });

  it('stores a redelivered lead once, answering the redelivery as the first delivery, and records nothing', async () => {
    const mobile = uniqueMobile();
    const id = deliveryId(name);
    const first = await delivered(account, { mobile, id });
    const again = await delivered(account, { mobile, id });
    expectAccepted(first);
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(await leadsOf(mobile)).toHaveLength(1);
    expect(await recordsOf(mobile)).toEqual([]);
  });

  describe.each(['ignore', 'create', 'merge'] as const)('under the duplicate setting %s', (setting: DuplicateSetting) => {
    let racing: SourceAccount;
    const racingId = `every-${name}-${setting}`;
    beforeAll(async () => {
      racing = await driven.account(racingId, setting);
    });

    it('stores one lead, an original, for 10 simultaneous deliveries of one lead, whose writes reached the database together, and records nothing', async () => {
      const mobile = uniqueMobile();
      const id = deliveryId(name);
      // The first two lead writes are held at the relay until both are there: a race made certain.
      relay.plan(heldTogether('TransactWriteItems', 2));
      // A sender retries a 503 (writers racing on one item may run out of time retrying the conflict): the final answers count.
      const answers = await Promise.all(Array.from({ length: 10 }, () => untilAnswered(() => racing.deliver({ mobile, id }))));
      await driven.settled();
      expect(relay.mostInFlight('TransactWriteItems')).toBeGreaterThanOrEqual(2);
      relay.heal();
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(source.acceptance.status));
      const leads = await leadsOf(mobile, racingId);
      expect(leads).toHaveLength(1);
      expect(leads[0]).toMatchObject({ mobile_number: mobile, is_repeated: false, parent_lead_id: null });
      expect(await recordsOf(mobile, racingId)).toEqual([]);
      expect(driven.worker?.deadLetters() ?? []).not.toContain(id);
      expect(await driven.service.repository.leadArchive.checkIntegrity()).toEqual([]);
    });
  });

  describe.each(stalls)('when the database stalls on %s', (_stall, plan) => {
    // Which promise a source keeps here is its descriptor's: a request source answers the 503 itself.
    if (!source.worker) {
      it('answers 503 with Retry-After before the function times out, and the retry stores the lead once', async () => {
        const mobile = uniqueMobile();
        const id = deliveryId(name);
        relay.plan(plan);
        // Less the test process's own event-loop stalls: a busy machine's doing, not the service's.
        const { answer: during, ms, stallMs } = await timedWithStalls(() => account.deliver({ mobile, id }));
        relay.heal();
        expect(relay.seen().some((request) => request.action === 'stall')).toBe(true);
        expect(during.status).toBe(503);
        expect(during.body).toEqual(UNAVAILABLE);
        expect(during.headers['retry-after']).toEqual(expect.stringMatching(/^[1-9]\d*$/));
        expect(during.headers['x-request-id']).toEqual(expect.any(String));
        expect(ms - stallMs).toBeLessThan(FUNCTION_TIMEOUT_MS);
        expectAccepted(await account.deliver({ mobile, id }));
        expect(await leadsOf(mobile)).toHaveLength(1);
        expect(await driven.service.repository.leadArchive.checkIntegrity()).toEqual([]);
      });
    } else {
      it("acknowledges at once; the worker's receive fails before its function times out, and the queue's next receive stores the lead once", async () => {
        const worker = driven.worker!;
        const mobile = uniqueMobile();
        const id = deliveryId(name);
        relay.plan(plan);
        // Healed as the stalled receive ends, before the queue brings the message back.
        worker.onReceiveEnd((ended) => {
          if (ended.id === id) relay.heal();
        });
        try {
          expectAccepted(await account.deliver({ mobile, id }));
          await driven.settled();
        } finally {
          worker.onReceiveEnd(undefined);
        }
        expect(relay.seen().some((request) => request.action === 'stall')).toBe(true);
        const receives = worker.receives.filter((receive) => receive.id === id);
        expect(receives.map(({ receive, failed }) => ({ receive, failed }))).toEqual([
          { receive: 1, failed: true },
          { receive: 2, failed: false },
        ]);
        expect(receives[0]!.ms).toBeLessThan(worker.timeoutMs);
        expect(worker.deadLetters()).not.toContain(id);
        expect(await leadsOf(mobile)).toHaveLength(1);
        expect(await driven.service.repository.leadArchive.checkIntegrity()).toEqual([]);
      });
    }
  });

  it("records a refused lead under its name and lets erasure reach the person's leads and rejection records, for good", async () => {
    const mobile = uniqueMobile();
    const storedId = deliveryId(name);
    expectAccepted(await delivered(account, { mobile, id: storedId }));
    // A second lead of the same person under `ignore` is refused, and its record names the person too.
    const refusedId = deliveryId(name);
    await delivered(account, { mobile, id: refusedId });
    const person = { kind: 'mobile', value: mobile } as const;
    const found = await driven.service.repository.people.findPerson(accountId, person);
    expect(found.leads).toHaveLength(1);
    expect(found.rejections).toHaveLength(1);
    // The record names its source as its descriptor does, with the platform's own id where it has one.
    expect(found.rejections[0]).toMatchObject({ endpoint: source.name, reason: 'duplicate_lead' });
    if (source.platformId) expect(found.rejections[0]![source.platformId.field]).toBe(refusedId);
    expect(await driven.service.repository.people.erasePerson(accountId, person)).toEqual({ leads: 1, rejections: 1, alternate_numbers: 0 });
    expect(await driven.service.repository.people.findPerson(accountId, person)).toEqual({ leads: [], rejections: [] });
    // Redelivered after the erasure (CONTRACT.md sections 12 and 13), neither brings the person back.
    expect((await delivered(account, { mobile, id: storedId })).status).toBeLessThan(500);
    expect(await driven.service.repository.people.findPerson(accountId, person)).toEqual({ leads: [], rejections: [] });
    // Nor does the refused one's platform id: its record was its decision, and the erasure of the record
    // leaves the claim (section 14: the first delivery decides), though its original lead is gone too.
    if (source.platformId) {
      expect((await delivered(account, { mobile, id: refusedId })).status).toBeLessThan(500);
      expect(await driven.service.repository.people.findPerson(accountId, person)).toEqual({ leads: [], rejections: [] });
    }
    // The person's next lead is a new original, where the erased one was the original.
    expectAccepted(await delivered(account, { mobile, id: deliveryId(name) }));
    expect(await leadsOf(mobile)).toEqual([expect.objectContaining({ is_repeated: false, parent_lead_id: null })]);
  });

  it('records a delivery refused for its fields under reason validation, the one name every source gives that cause', async () => {
    const since = new Date(Date.now() - 1).toISOString();
    const id = deliveryId(name);
    expect((await delivered(account, { mobile: '12345', id })).status).toBeLessThan(500);
    const records = await driven.service.repository.rejections.listRejections(accountId, since);
    expect(records.map((record) => record.reason)).toEqual(['validation']);
    expect(records[0]).toMatchObject({ endpoint: source.name, fields: { mobile_number: [expect.any(String)] } });
    if (source.platformId) expect(records[0]![source.platformId.field]).toBe(id);
  });

  it('never writes a key, a token, a secret, a full mobile number or an e-mail in a log line, of an accepted delivery or a refused one', async () => {
    const mobile = uniqueMobile();
    const email = driven.carriesEmail ? `asha.${sequence}@verma-family.example` : undefined;
    const from = driven.service.logs.length;
    // Accepted; refused for its key; refused as a duplicate (a rejection record).
    await delivered(account, { mobile, id: deliveryId(name), ...(email && { email }) });
    await delivered(account, { mobile, id: deliveryId(name), wrongKey: true, ...(email && { email }) });
    await delivered(account, { mobile, id: deliveryId(name), ...(email && { email }) });
    const lines = driven.service.logs.slice(from).map((line) => JSON.stringify(line));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const secrets = account.secrets.flatMap((secret) => [secret, secret.slice(3, 20)]);
    const person = [mobile, ...(email ? [email, email.split('@')[0]!, 'verma-family'] : [])];
    expect(lines.filter((line) => [...secrets, ...person].some((text) => line.includes(text)))).toEqual([]);
  });
});
