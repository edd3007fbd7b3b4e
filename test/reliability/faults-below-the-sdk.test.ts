import { beforeAll, describe, expect, it } from '@jest/globals';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { DEFAULT_RETRY } from '../../shared/dynamodb/leads.ts';
import { accountsBehind, healedBeforeEach, dynamoDbError, firstOf, startFaultRelay, type FaultRelay, type RelayAction, type RelayPlan } from '../support/fault-relay.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';
import { timedWithStalls } from '../support/event-loop.ts';

/**
 * Faults on the wire between the service and DynamoDB Local (test/support/fault-relay.ts): resets,
 * DynamoDB's own error answers, lost answers of applied writes, conflicts and transactions still in
 * progress. The SDK's retries, its ClientRequestToken, its error parsing and the service's read-back
 * all run for real; only the wire misbehaves.
 */
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const UNAVAILABLE = { status: false, message: 'Service temporarily unavailable, please retry' };

let relay: FaultRelay;
let accountOf: Awaited<ReturnType<typeof accountsBehind>>;

beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
  accountOf = await accountsBehind(relay);
}, 30_000);

healedBeforeEach(() => relay);

const using = (setting: DuplicateSetting = 'merge') => {
  const { service, apiKey, leads } = accountOf(setting);
  const send = (body: Record<string, unknown>, headers: Record<string, string> = {}) => service.call('portala', { apiKey, body, headers });
  return { service, send, leads };
};

const tokensOf = (operation: string) => relay.seen(operation).map((request) => request.body.ClientRequestToken as string);
const every = (operation: string, action: () => RelayAction): RelayPlan => (request) => (request.operation === operation ? action() : undefined);
const after = (operation: string) => {
  const operations = relay.seen().map((request) => request.operation);
  return operations.slice(operations.lastIndexOf(operation) + 1);
};

describe("the SDK's own retries, against faults on the wire", () => {
  it('retries a reset connection with the same ClientRequestToken, and stores the lead once', async () => {
    const { send, leads, service } = using();
    const before = (await leads()).length;
    relay.plan(firstOf('TransactWriteItems', 1, () => ({ kind: 'reset' })));
    const answer = await send(validBody('portala', project));
    expect(answer.status).toBe(200);
    expect(relay.seen('TransactWriteItems').map((r) => r.action)).toEqual(['reset', 'pass']);
    expect(new Set(tokensOf('TransactWriteItems')).size).toBe(1);
    expect(await leads()).toHaveLength(before + 1);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });

  it("stores a lead once when DynamoDB applied the write and its answer was lost, answering 200", async () => {
    const { send, leads, service } = using();
    const before = (await leads()).length;
    relay.plan(firstOf('TransactWriteItems', 1, () => ({ kind: 'pass-then-reset' })));
    const answer = await send(validBody('portala', project));
    expect(answer.status).toBe(200);
    // The SDK's retry is the same transaction (same token), which DynamoDB does not apply twice.
    expect(relay.seen('TransactWriteItems').map((r) => r.action)).toEqual(['pass-then-reset', 'pass']);
    expect(new Set(tokensOf('TransactWriteItems')).size).toBe(1);
    const stored = await leads();
    expect(stored).toHaveLength(before + 1);
    expect(stored.map((lead) => lead.id)).toContain(answer.body.data.id);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });

  it("stores a repeated lead once when its put was applied and the answer lost", async () => {
    const { send, leads } = using('merge');
    const mobile = uniqueMobile();
    const original = await send(validBody('portala', project, { mobile_number: mobile }));
    const before = (await leads()).length;
    // The repeat and its person lookup items are one BatchWriteItem.
    relay.plan(firstOf('BatchWriteItem', 1, () => ({ kind: 'pass-then-reset' })));
    const answer = await send(validBody('portala', project, { mobile_number: mobile }));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ is_repeated: true, parent_lead_id: original.body.data.id });
    expect(relay.seen('BatchWriteItem').map((r) => r.action)).toEqual(['pass-then-reset', 'pass']);
    expect(await leads()).toHaveLength(before + 1);
  });

  it.each([
    ['ThrottlingException on the key lookup', 'GetItem', dynamoDbError.throttling],
    ['ProvisionedThroughputExceededException on the account read', 'Query', dynamoDbError.provisionedThroughputExceeded],
    ["DynamoDB's 500 on the lead write", 'TransactWriteItems', dynamoDbError.internalServerError],
  ])('parses %s from its JSON body, retries it and answers 200', async (_, operation, error) => {
    // A fresh key and an empty cache, so the key lookup and the account read happen.
    const fresh = await testService({ endpoint: relay.endpoint, configCacheTtlSeconds: 0 });
    await fresh.seedAccount({ id: 'acc-fresh', projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await fresh.issueKey('acc-fresh');
    relay.clearSeen();
    relay.plan(firstOf(operation, 1, error));
    const answer = await fresh.call('portalb', { apiKey: key, body: validBody('portalb', project) });
    expect(answer.status).toBe(200);
    expect(relay.seen(operation).map((r) => r.action)).toEqual(['answer', 'pass']);
  });

  it("answers 503 after the SDK's three attempts at a 500, having read back that nothing was stored", async () => {
    const { send, leads } = using();
    const before = (await leads()).length;
    relay.plan(every('TransactWriteItems', dynamoDbError.internalServerError));
    const answer = await send(validBody('portala', project));
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(answer.headers['retry-after']).toBe('1');
    expect(relay.seen('TransactWriteItems')).toHaveLength(3);
    expect(after('TransactWriteItems')).toEqual(['GetItem']);
    expect(await leads()).toHaveLength(before);
  });

  it('answers 503 within the function timeout when every attempt is throttled, retrying only while time remains', async () => {
    const fast = await testService({ endpoint: relay.endpoint, configCacheTtlSeconds: 0, functionTimeoutMs: 1_500 });
    await fast.seedAccount({ id: 'acc-fast', projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await fast.issueKey('acc-fast');
    relay.clearSeen();
    relay.plan(every('GetItem', dynamoDbError.throttling));
    // Less the test process's own event-loop stalls: a busy machine's doing, not the service's.
    const { answer, ms, stallMs } = await timedWithStalls(() => fast.call('portala', { apiKey: key, body: validBody('portala', project) }));
    expect(ms - stallMs).toBeLessThan(1_500);
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(relay.seen('GetItem').length).toBeGreaterThanOrEqual(1);
    expect(relay.seen('GetItem').length).toBeLessThanOrEqual(3);
  });
});

describe('a transaction conflict with a writer that committed first', () => {
  /** Before the first write of this request reaches DynamoDB, `other` runs to completion; then the write is cancelled for a conflict. */
  const conflictAfter = (other: () => Promise<unknown>, items: number): RelayPlan => {
    let done = false;
    return async (request) => {
      if (request.operation !== 'TransactWriteItems' || done) return undefined;
      done = true;
      await other();
      return dynamoDbError.transactionCanceled(...['TransactionConflict', ...Array<string>(items - 1).fill('None')]);
    };
  };

  it.each([
    ['ignore', 422],
    ['create', 200],
    ['merge', 200],
  ] as const)('under %s, the retry finds the other lead and treats this one as its duplicate', async (setting, status) => {
    const { send, leads, service } = using(setting);
    const mobile = uniqueMobile();
    const before = (await leads()).length;
    let other: any;
    relay.plan(conflictAfter(async () => (other = await send(validBody('portala', project, { mobile_number: mobile }))), 2));
    const answer = await send(validBody('portala', project, { mobile_number: mobile }));

    expect(other.status).toBe(200);
    expect(answer.status).toBe(status);
    const stored = await leads();
    if (setting === 'ignore') {
      expect(answer.body).toEqual({ status: false, message: 'Lead already exists' });
      expect(stored).toHaveLength(before + 1);
    } else {
      expect(answer.body.data).toMatchObject({ is_repeated: true, parent_lead_id: setting === 'merge' ? other.body.data.id : null });
      expect(stored).toHaveLength(before + 2);
    }
    expect(stored.find((lead) => lead.id === other.body.data.id)).toMatchObject({ is_repeated: false });
    expect(relay.seen('TransactWriteItems').map((r) => r.action)).toContain('answer');
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });

  it("under an Idempotency-Key, the retry answers the other attempt's lead and stores nothing more", async () => {
    const { send, leads } = using('create');
    const body = validBody('portala', project);
    const headers = { 'idempotency-key': `retry-${uniqueMobile()}` };
    const before = (await leads()).length;
    let other: any;
    relay.plan(conflictAfter(async () => (other = await send(body, headers)), 3));
    const answer = await send(body, headers);

    expect(other.status).toBe(200);
    expect(answer.status).toBe(200);
    expect(answer.headers['idempotent-replayed']).toBe('true');
    expect(answer.body.data).toEqual(other.body.data);
    expect(await leads()).toHaveLength(before + 1);
  });

  it(`gives up after ${DEFAULT_RETRY.attempts} attempts of a transaction that keeps conflicting, answering 503 after a read-back`, async () => {
    expect(DEFAULT_RETRY.attempts).toBe(5);
    const { send, leads } = using();
    const before = (await leads()).length;
    relay.plan(every('TransactWriteItems', () => dynamoDbError.transactionCanceled('TransactionConflict', 'None')));
    const answer = await send(validBody('portala', project));
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    // Five transactions of the service, each its own (a conflict is not retried by the SDK).
    expect(relay.seen('TransactWriteItems')).toHaveLength(5);
    expect(new Set(tokensOf('TransactWriteItems')).size).toBe(5);
    expect(after('TransactWriteItems')).toEqual(['GetItem']);
    expect(await leads()).toHaveLength(before);
  });
});

describe('transactions DynamoDB neither applies nor refuses', () => {
  it('answers 200 when a retried transaction is still in progress and the read-back finds the first attempt applied', async () => {
    const { send, leads } = using();
    const before = (await leads()).length;
    let writes = 0;
    relay.plan((request) =>
      request.operation !== 'TransactWriteItems' ? undefined : (writes += 1) === 1 ? { kind: 'pass-then-reset' } : dynamoDbError.transactionInProgress(),
    );
    const answer = await send(validBody('portala', project));
    expect(answer.status).toBe(200);
    expect(relay.seen('TransactWriteItems').map((r) => r.action)).toEqual(['pass-then-reset', 'answer', 'answer']);
    expect(new Set(tokensOf('TransactWriteItems')).size).toBe(1);
    expect(after('TransactWriteItems')).toEqual(['GetItem']);
    const stored = await leads();
    expect(stored).toHaveLength(before + 1);
    expect(stored.map((lead) => lead.id)).toContain(answer.body.data.id);
  });

  it('answers 503, never 500, when the transaction stays in progress and the read-back finds nothing', async () => {
    const { send, leads } = using();
    const before = (await leads()).length;
    relay.plan(every('TransactWriteItems', dynamoDbError.transactionInProgress));
    const answer = await send(validBody('portala', project));
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(after('TransactWriteItems')).toEqual(['GetItem']);
    expect(await leads()).toHaveLength(before);
  });

  it.each(['ThrottlingError', 'ProvisionedThroughputExceeded'])('retries a transaction cancelled for %s, then answers 503 after a read-back', async (code) => {
    const { send, leads } = using();
    const before = (await leads()).length;
    relay.plan(every('TransactWriteItems', () => dynamoDbError.transactionCanceled(code, 'None')));
    const answer = await send(validBody('portala', project));
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(answer.headers['retry-after']).toBe('1');
    expect(relay.seen('TransactWriteItems')).toHaveLength(DEFAULT_RETRY.attempts);
    expect(after('TransactWriteItems')).toEqual(['GetItem']);
    expect(await leads()).toHaveLength(before);
  });
});
