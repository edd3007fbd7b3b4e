/**
 * CONTRACT.md section 14: erasure is final against concurrent work. Once an erasure has answered, no
 * lead, repeat or idempotency replay brings back the person's data or points at an erased lead; a
 * repeat whose original was erased while it was being stored becomes an original; the erasure
 * tombstones only the idempotency records of the leads it erased. The races are made certain with the
 * fault relay (test/support/fault-relay.ts): the write is held at the wire while the erasure runs whole.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { sha256 } from '../../shared/dynamodb/requests.ts';
import { healedBeforeEach, startFaultRelay, type FaultRelay } from '../support/fault-relay.ts';
import { adminApi } from '../support/admin-handler.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
let relay: FaultRelay;
let service: TestService;
let keys: Record<'create' | 'merge', string>;

beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
  service = await testService({ endpoint: relay.endpoint });
  await service.seedAccount({ id: 'acc-race-merge', duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] } });
  await service.seedAccount({ id: 'acc-race-create', duplicateSetting: 'create', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
  keys = { merge: await service.issueKey('acc-race-merge'), create: await service.issueKey('acc-race-create') };
  browserKey = (await service.issueScopedKey({ accountId: 'acc-race-create', origins: [SHOP] })).key;
}, 30_000);

const SHOP = 'https://shop.example';
let browserKey: string;

healedBeforeEach(() => relay);

const erase = (setting: 'create' | 'merge', mobile: string) => service.repository.people.erasePerson(`acc-race-${setting}`, { kind: 'mobile', value: mobile });
const leadsOf = (setting: 'create' | 'merge') => service.repository.leadArchive.listLeads(`acc-race-${setting}`, ['PRJ-1']);

describe("an erasure between a repeat's claim check and its write", () => {
  it.each(['create', 'merge'] as const)('under %s, makes the repeat a new original, never a repeat of the erased lead', async (setting) => {
    const mobile = uniqueMobile();
    const original = await service.call('portala', { apiKey: keys[setting], body: validBody('portala', project, { mobile_number: mobile }) });
    expect(original.status).toBe(200);

    // The repeat's claim was refused (the original's), then its write waits at the wire while the person is erased.
    let erased: unknown;
    let held = false;
    relay.plan(async (request) => {
      if (request.operation !== 'BatchWriteItem' || held) return undefined;
      held = true;
      erased = await erase(setting, mobile);
      return undefined;
    });
    const repeat = await service.call('portala', { apiKey: keys[setting], body: validBody('portala', project, { mobile_number: mobile }) });
    relay.heal();

    expect(erased).toEqual({ leads: 1, rejections: 0, alternate_numbers: 0 });
    expect(repeat.status).toBe(200);
    expect(repeat.body.data).toMatchObject({ is_repeated: false, parent_lead_id: null });
    const stored = (await leadsOf(setting)).filter((lead) => lead.mobile_number === mobile);
    expect(stored).toEqual([repeat.body.data]);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
    // The person's next lead is a repeat of the new original.
    const next = await service.call('portala', { apiKey: keys[setting], body: validBody('portala', project, { mobile_number: mobile }) });
    expect(next.body.data).toMatchObject({ is_repeated: true, parent_lead_id: setting === 'merge' ? repeat.body.data.id : null });
  });

  it('under merge with an Idempotency-Key, the key replays the lead as it became, never pointing at the erased one', async () => {
    const mobile = uniqueMobile();
    await service.call('portala', { apiKey: keys.merge, body: validBody('portala', project, { mobile_number: mobile }) });
    const body = validBody('portala', project, { mobile_number: mobile });
    const headers = { 'idempotency-key': `race-${mobile}` };
    let writes = 0;
    relay.plan(async (request) => {
      // The keyed repeat is a transaction: the first is the refused claim, the second the repeat.
      if (request.operation !== 'TransactWriteItems' || (writes += 1) !== 2) return undefined;
      await erase('merge', mobile);
      return undefined;
    });
    const repeat = await service.call('portala', { apiKey: keys.merge, body, headers });
    relay.heal();
    expect(repeat.body.data).toMatchObject({ is_repeated: false, parent_lead_id: null });
    const replay = await service.call('portala', { apiKey: keys.merge, body, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data).toEqual(repeat.body.data);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });
});

describe("an erasure's idempotency tombstones", () => {
  it('leave alone a record that a later request reused after the key expired', async () => {
    const erasedMobile = uniqueMobile();
    const key = `reused-${erasedMobile}`;
    const first = await service.call('portala', { apiKey: keys.create, body: validBody('portala', project, { mobile_number: erasedMobile }), headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    // 24 hours pass: the key's record expires (DynamoDB's TTL deletes lazily, so it is still there).
    await createDocumentClient({ client: service.client }).send(
      new UpdateCommand({
        TableName: service.tables.leads,
        Key: { pk: `IDEMPOTENCY#acc-race-create#${sha256(key)}`, sk: 'IDEMPOTENCY' },
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 60 },
      }),
    );
    // Another person's request reuses the key, as it may after 24 hours.
    const laterBody = validBody('portala', project, { mobile_number: uniqueMobile() });
    const later = await service.call('portala', { apiKey: keys.create, body: laterBody, headers: { 'idempotency-key': key } });
    expect(later.status).toBe(200);
    expect(later.body.data.id).not.toBe(first.body.data.id);

    expect(await erase('create', erasedMobile)).toEqual({ leads: 1, rejections: 0, alternate_numbers: 0 });
    // The later request's retry still gets its own lead, not 409 Lead was erased.
    const retry = await service.call('portala', { apiKey: keys.create, body: laterBody, headers: { 'idempotency-key': key } });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.data).toEqual(later.body.data);
  });

  it("still tombstone the erased lead's own record: its key answers 409 Lead was erased", async () => {
    const mobile = uniqueMobile();
    const body = validBody('portala', project, { mobile_number: mobile });
    const headers = { 'idempotency-key': `own-${mobile}` };
    expect((await service.call('portala', { apiKey: keys.create, body, headers })).status).toBe(200);
    await erase('create', mobile);
    expect(await service.call('portala', { apiKey: keys.create, body, headers })).toMatchObject({ status: 409, body: { status: false, message: 'Lead was erased' } });
  });
});

describe('an erasure and a quarantine release at once', () => {
  /** A submission of `mobile` caught by the honeypot: its quarantine record. */
  const quarantined = async (mobile: string) => {
    const body = validBody('website', project, { mobile_number: mobile, company_website: 'https://autofill.example' });
    const answer = await service.call('website', { apiKey: browserKey, body, headers: { origin: SHOP } });
    expect(answer.status).toBe(200);
    const records = await service.repository.rejections.listRejections('acc-race-create');
    return records.find((record) => record.requestId === answer.headers['x-request-id'])!;
  };
  const release = (id: string) => adminApi(service)('POST', `/admin/v1/accounts/acc-race-create/rejections/${id}/release`);

  it('refuses a release that read its record before the erasure and writes after it: nothing of the person comes back', async () => {
    const mobile = uniqueMobile();
    const record = await quarantined(mobile);
    let erased: unknown;
    let held = false;
    relay.plan(async (request) => {
      // The release's lead transaction (it carries the release mark) waits while the person is erased.
      if (request.operation !== 'TransactWriteItems' || held || !JSON.stringify(request.body).includes('SET released_at')) return undefined;
      held = true;
      erased = await erase('create', mobile);
      return undefined;
    });
    const answer = await release(record.id!);
    relay.heal();
    expect(erased).toEqual({ leads: 0, rejections: 1, alternate_numbers: 0 });
    expect(answer).toMatchObject({ status: 404, body: { status: false, message: 'Rejection not found' } });
    expect((await leadsOf('create')).filter((lead) => lead.mobile_number === mobile)).toEqual([]);
    expect(await service.repository.people.findPerson('acc-race-create', { kind: 'mobile', value: mobile })).toEqual({ leads: [], rejections: [] });
  });

  it('erases the lead of a release that committed while the erasure ran', async () => {
    const mobile = uniqueMobile();
    const record = await quarantined(mobile);
    let released: { status: number } | undefined;
    let held = false;
    relay.plan(async (request) => {
      // The erasure has read the person's items and is about to delete the record: the release commits first.
      if (request.operation !== 'TransactWriteItems' || held || released || !JSON.stringify(request.body).includes(record.id!)) return undefined;
      if (JSON.stringify(request.body).includes('SET released_at')) return undefined;
      held = true;
      released = await release(record.id!);
      return undefined;
    });
    const erased = await erase('create', mobile);
    relay.heal();
    expect(released?.status).toBe(200);
    expect(erased).toMatchObject({ leads: 1, rejections: 1 });
    expect((await leadsOf('create')).filter((lead) => lead.mobile_number === mobile)).toEqual([]);
    expect(await service.repository.people.findPerson('acc-race-create', { kind: 'mobile', value: mobile })).toEqual({ leads: [], rejections: [] });
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });
});
