import { beforeAll, describe, expect, it } from '@jest/globals';
import { dynamoDbError, healedBeforeEach, startFaultRelay, type FaultRelay, type RelayAction, type RelayPlan } from '../support/fault-relay.ts';
import { googleLeadId, googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';
import { uniqueMobile, validBody } from '../support/service.ts';

/**
 * CONTRACT.md section 14: a record the service answered for is stored. Every conditional or
 * transactional write (a lead's, a rejection or quarantine record's with its browser key's minute
 * counter, a Google delivery's under its form's guard) goes through one retry path
 * (shared/dynamodb/contended-write.ts): a conflict or a throttle that DynamoDB Local never produces is
 * injected by the fault relay, retried within the deadline, and when it never passes the answer is 503
 * with Retry-After: never a 200 over a lost record, never a 500.
 */
const SHOP = 'https://shop.example';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const UNAVAILABLE = { status: false, message: 'Service temporarily unavailable, please retry' };

let relay: FaultRelay;
let service: GoogleTestService;
let browserKey: string;
let secretKey: string;
let formKey: string;
const FORM = '42000000001';

beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
  service = await googleTestService({ endpoint: relay.endpoint });
  await service.seedAccount({ id: 'acc-c', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
  browserKey = (await service.issueScopedKey({ accountId: 'acc-c', origins: [SHOP] })).key;
  secretKey = await service.issueKey('acc-c');
  formKey = await service.connectForm('acc-c', FORM);
}, 30_000);

healedBeforeEach(() => relay);

/** The first `times` requests of `operation` get `action`; the rest pass. */
const first = (operation: string, times: number, action: () => RelayAction): RelayPlan => {
  let count = 0;
  return (request) => (request.operation === operation && count++ < times ? action() : undefined);
};
const every = (operation: string, action: () => RelayAction): RelayPlan => (request) => (request.operation === operation ? action() : undefined);
/** A transaction of `items` items cancelled because another transaction held its first item. */
const conflictOn = (items: number) => () => dynamoDbError.transactionCanceled('TransactionConflict', ...Array<string>(items - 1).fill('None'));
const singleItemConflict = (): RelayAction => ({
  kind: 'answer',
  status: 400,
  body: { __type: 'com.amazonaws.dynamodb.v20120810#TransactionConflictException', message: 'Transaction is ongoing for the item' },
});

const bot = (mobile = uniqueMobile()) =>
  service.call('website', { apiKey: browserKey, body: validBody('website', project, { mobile_number: mobile, company_website: 'x' }), headers: { origin: SHOP } });
const recordsOf = async (requestId: string) => (await service.repository.rejections.listRejections('acc-c')).filter((record) => record.requestId === requestId);
/** The items a relayed TransactWriteItems carried: the rate counter is the browser key's record's first. */
const transactionItems = () => relay.seen('TransactWriteItems').at(-1)?.body.TransactItems.length as number;

describe("a browser key's quarantine record and its minute counter", () => {
  it('retries a record cancelled for a conflict on the minute counter, stores it once and answers 200', async () => {
    relay.plan(first('TransactWriteItems', 2, conflictOn(4)));
    const answer = await bot();
    expect(answer.status).toBe(200);
    expect(relay.seen('TransactWriteItems').map((request) => request.action)).toEqual(['answer', 'answer', 'pass']);
    expect(await recordsOf(answer.headers['x-request-id']!)).toEqual([expect.objectContaining({ reason: 'honeypot' })]);
  });

  it('answers 503 with Retry-After, never 200, when the record keeps conflicting, and stores nothing', async () => {
    relay.plan(every('TransactWriteItems', conflictOn(4)));
    const answer = await bot();
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(answer.headers['retry-after']).toBe('1');
    expect(relay.seen('TransactWriteItems')).toHaveLength(5);
    expect(transactionItems()).toBeGreaterThan(1);
    relay.heal();
    expect(await recordsOf(answer.headers['x-request-id']!)).toEqual([]);
  });

  it('retries a record cancelled because one of its items was throttled', async () => {
    relay.plan(first('TransactWriteItems', 1, () => dynamoDbError.transactionCanceled('ThrottlingError', 'None', 'None', 'None')));
    const answer = await bot();
    expect(answer.status).toBe(200);
    expect(await recordsOf(answer.headers['x-request-id']!)).toHaveLength(1);
  });
});

describe("a secret key's rejection record", () => {
  const refused = (mobile?: string) =>
    service.call('portala', { apiKey: secretKey, body: mobile ? validBody('portala', { projectID: 'PRJ-404', campaignID: 'CMP-1' }, { mobile_number: mobile }) : { name: 'x' } });

  it('retries a put that met a transaction in flight on its item, and answers the 422 with the record stored', async () => {
    // A body with neither mobile nor e-mail: the record is one PutItem, with no person lookup items.
    relay.plan(first('PutItem', 1, singleItemConflict));
    const answer = await refused();
    expect(answer.status).toBe(422);
    expect(relay.seen('PutItem').map((request) => request.action)).toEqual(['answer', 'pass']);
    expect(await recordsOf(answer.headers['x-request-id']!)).toHaveLength(1);
  });

  it('answers 503 with Retry-After instead of the 422 when the record cannot be stored, and stores nothing', async () => {
    relay.plan(every('BatchWriteItem', dynamoDbError.throttling));
    const answer = await refused(uniqueMobile());
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(answer.headers['retry-after']).toBe('1');
    relay.heal();
    expect(await recordsOf(answer.headers['x-request-id']!)).toEqual([]);
  });
});

describe("Google deliveries that meet on their form's guard", () => {
  const testDelivery = () => service.deliver({ leadId: googleLeadId(), formId: FORM, key: formKey, columns: standardColumns(uniqueMobile()), isTest: true });

  it("retries a test lead's record cancelled for a conflict on the form's guard, and answers 200 with it stored", async () => {
    relay.plan(first('TransactWriteItems', 1, () => dynamoDbError.transactionCanceled('None', 'None', 'None', 'TransactionConflict')));
    const answer = await testDelivery();
    expect(answer.status).toBe(200);
    expect(await recordsOf(answer.headers['x-request-id']!)).toEqual([expect.objectContaining({ reason: 'google_test_lead' })]);
  });

  it('answers 503 with Retry-After, never 500, when the guard keeps conflicting', async () => {
    relay.plan(every('TransactWriteItems', () => dynamoDbError.transactionCanceled('None', 'None', 'None', 'TransactionConflict')));
    const answer = await testDelivery();
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(answer.headers['retry-after']).toBe('1');
  });

  it('retries a lead transaction cancelled for a throttled item, and stores the lead once', async () => {
    const leadId = googleLeadId();
    relay.plan(first('TransactWriteItems', 1, () => dynamoDbError.transactionCanceled('ThrottlingError', 'None', 'None', 'None', 'None', 'None')));
    const answer = await service.deliver({ leadId, formId: FORM, key: formKey, columns: standardColumns(uniqueMobile()) });
    expect(answer.status).toBe(200);
    expect((await service.leadsOf('acc-c')).filter((lead) => lead.google_lead_id === leadId)).toHaveLength(1);
  });
});
