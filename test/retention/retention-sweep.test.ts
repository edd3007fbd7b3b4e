/**
 * Retention per account (CONTRACT.md section 18), against DynamoDB Local with short retention days
 * (RETENTION_DAY_SECONDS): leads made through the lead handler, the sweep run as the deployed function
 * runs it (its AWS calls checked against its role), Lead Erased read from the table's stream with the
 * code npm start and the deployed enrichment run, and the tables scanned afterwards for anything left
 * of the person. Time is the sweep's `now`: nothing waits for days to pass.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runAdmin } from '../../scripts/admin.ts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLeadStreamReader, type DeliveredEvent, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import { enrichment } from '../../functions/lead-events/handler.ts';
import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { PersonData } from '../../shared/domain/person-data.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { erasureReasonReader } from '../../shared/dynamodb/erasure-reasons.ts';
import { containerPersonKeyring } from '../../shared/person-keyring.ts';
import { retentionDaySecondsOf, retentionSweepHandler, runRetentionSweep } from '../../shared/retention.ts';
import { asFunction } from '../support/aws-calls.ts';
import { waitFor } from '../support/processes.ts';
import { everyStoredItem, testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

/** A retention day of a tenth of a second: an account's 30 days are 3 seconds. */
const DAY_SECONDS = retentionDaySecondsOf({ RETENTION_DAY_SECONDS: '0.1' });
const DAY_MS = DAY_SECONDS * 1000;
const p1 = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

let service: TestService;
let reader: LeadStreamReader;
const events: DeliveredEvent[] = [];
let key: string;
const tag = randomUUID().slice(0, 8);

/** One sweep at `now`, as the deployed function runs it. */
const sweep = (now: Date, remainingMs?: () => number) =>
  asFunction('retention-sweep', () =>
    runRetentionSweep({
      db: createDocumentClient({ client: service.client }),
      configTable: service.tables.config,
      leadsTable: service.tables.leads,
      keyring: containerPersonKeyring(),
      daySeconds: DAY_SECONDS,
      now: () => now,
      ...(remainingMs && { remainingMs }),
    }),
  );

const lead = async (accountKey: string, fields: Record<string, unknown>) => {
  const answer = await service.call('portala', { apiKey: accountKey, body: validBody('portala', p1, fields) });
  expect(answer.status).toBe(200);
  return answer.body.data as { id: string; created_at: string; is_repeated: boolean; parent_lead_id: string | null };
};

/** The instant `days` retention days after a lead was created, and a millisecond. */
const after = (createdAt: string, days: number) => new Date(Date.parse(createdAt) + days * DAY_MS + 1);

/** Every item of both tables, as stored, as text. */
const everyItem = async () => (await everyStoredItem(service)).map((item) => JSON.stringify(item));

const erasedEventsOf = (leadId: string) => events.filter((event) => event['detail-type'] === 'Lead Erased' && (event.detail as { lead_id?: string }).lead_id === leadId);

const account = async (id: string, retention: { leadDays?: number | null; rejectionDays?: number }) => {
  await service.seedAccount({ id, duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] } });
  await new AccountAdmin(service.repository.accounts).setRetention(id, retention);
  return service.issueKey(id);
};

beforeAll(async () => {
  service = await testService();
  key = await account('acc-r', { leadDays: 30 });
  reader = await startLeadStreamReader({
    dynamodb: service.client,
    endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
    leadsTable: service.tables.leads,
    onEvent: (event) => events.push(event),
    pollIntervalMs: 50,
  });
}, 60_000);

afterAll(async () => {
  await reader?.stop();
});

describe('a lead older than its account keeps leads', () => {
  const person = { mobile: uniqueMobile(), email: `Old.${tag}@Example.com`, name: `Asha Aged ${tag}` };
  const younger = { mobile: uniqueMobile(), name: `Ravi Young ${tag}` };
  let old: Awaited<ReturnType<typeof lead>>;
  let repeat: Awaited<ReturnType<typeof lead>>;
  let young: Awaited<ReturnType<typeof lead>>;
  let swept: Awaited<ReturnType<typeof sweep>>;

  beforeAll(async () => {
    old = await lead(key, { name: person.name, mobile_number: person.mobile, email: person.email, alternate_number: younger.mobile });
    repeat = await lead(key, { name: person.name, mobile_number: person.mobile });
    expect(repeat).toMatchObject({ is_repeated: true, parent_lead_id: old.id });
    // The younger lead is stored a retention day after the old ones, as far as the sweep's clock goes.
    young = await lead(key, { name: younger.name, mobile_number: younger.mobile });
    swept = await sweep(after(repeat.created_at, 30));
  }, 60_000);

  it('is erased with its repeat, its lookup items, its claim and everything that named the person; another account keeps nothing of theirs either', async () => {
    expect(swept).toMatchObject({ leads: expect.any(Number), complete: true });
    const listed = await service.repository.leadArchive.listLeads('acc-r', ['PRJ-1']);
    expect(listed.map((stored) => stored.id)).not.toContain(old.id);
    expect(listed.map((stored) => stored.id)).not.toContain(repeat.id);
    const items = await everyItem();
    for (const trace of [person.mobile, person.email, person.email.toLowerCase(), person.name]) {
      expect(items.filter((item) => item.includes(trace))).toEqual([]);
    }
    const found = await new PersonData(service.repository.accounts, service.repository.people, DAY_SECONDS).access('acc-r', { mobile_number: person.mobile });
    expect(found).toEqual({ leads: [], rejections: [] });
  });

  it('a younger lead stays, and access says when retention will erase it (retained_until)', async () => {
    const found = await new PersonData(service.repository.accounts, service.repository.people, DAY_SECONDS).access('acc-r', { mobile_number: younger.mobile });
    expect(found.leads.map((stored) => [stored.id, stored.retained_until])).toEqual([[young.id, new Date(Date.parse(young.created_at) + 30 * DAY_MS).toISOString()]]);
  });

  it("the CRM hears Lead Erased with reason retention for each, once; the enrichment reads the same reason", async () => {
    await waitFor(() => erasedEventsOf(old.id).length > 0 && erasedEventsOf(repeat.id).length > 0, 'the Lead Erased events of the aged-out leads');
    expect(erasedEventsOf(old.id).map((event) => event.detail)).toEqual([{ account_id: 'acc-r', lead_id: old.id, reason: 'retention' }]);
    expect(erasedEventsOf(repeat.id).map((event) => event.detail)).toEqual([{ account_id: 'acc-r', lead_id: repeat.id, reason: 'retention' }]);
    const removed = { eventName: 'REMOVE', dynamodb: { Keys: { pk: { S: `LEADS#acc-r#PRJ-1` }, sk: { S: `LEAD#${old.id}` } } } };
    const reasonOf = erasureReasonReader(createDocumentClient({ client: service.client }), service.tables.leads);
    expect(await asFunction('lead-events', () => enrichment(reasonOf)([removed]))).toEqual([{ account_id: 'acc-r', lead_id: old.id, reason: 'retention' }]);
  });

  it('the next lead of that mobile in that project is an original', async () => {
    const next = await lead(key, { name: person.name, mobile_number: person.mobile });
    expect(next).toMatchObject({ is_repeated: false, parent_lead_id: null });
  });

  it('a sweep again erases nothing more', async () => {
    expect(await sweep(after(repeat.created_at, 30))).toMatchObject({ leads: 0, complete: true });
  });
});

describe('shortening the setting', () => {
  it('applies to leads already stored, at the next sweep', async () => {
    const shortKey = await account('acc-short', { leadDays: 3650 });
    const stored = await lead(shortKey, { mobile_number: uniqueMobile() });
    expect(await sweep(after(stored.created_at, 40))).toMatchObject({ complete: true });
    expect((await service.repository.leadArchive.listLeads('acc-short', ['PRJ-1'])).map((l) => l.id)).toEqual([stored.id]);
    await new AccountAdmin(service.repository.accounts).setRetention('acc-short', { leadDays: 30 });
    await sweep(after(stored.created_at, 40));
    expect(await service.repository.leadArchive.listLeads('acc-short', ['PRJ-1'])).toEqual([]);
    await waitFor(() => erasedEventsOf(stored.id).length > 0, 'its Lead Erased');
    expect(erasedEventsOf(stored.id).map((event) => event.detail)).toEqual([{ account_id: 'acc-short', lead_id: stored.id, reason: 'retention' }]);
  });

  it('an account that keeps its leads until erased (null) is never swept of them', async () => {
    const keepKey = await account('acc-keep', { leadDays: null, rejectionDays: 5 });
    const stored = await lead(keepKey, { mobile_number: uniqueMobile() });
    await sweep(after(stored.created_at, 4000));
    expect((await service.repository.leadArchive.listLeads('acc-keep', ['PRJ-1'])).map((l) => l.id)).toEqual([stored.id]);
  });
});

describe('a sweep stopped half way', () => {
  it('is finished by the next, erasing each lead once', async () => {
    const haltKey = await account('acc-halt', { leadDays: 30 });
    const stored: Awaited<ReturnType<typeof lead>>[] = [];
    for (let i = 0; i < 6; i++) stored.push(await lead(haltKey, { mobile_number: uniqueMobile(), name: `Halt ${i} ${tag}` }));
    const at = after(stored.at(-1)!.created_at, 30);
    // Time for two erasures, then the run's time is up.
    let budget = 3;
    const first = await sweep(at, () => (budget-- > 0 ? 60_000 : 0));
    expect(first.complete).toBe(false);
    expect(first.leads).toBeLessThan(6);
    const second = await sweep(at);
    expect(second.complete).toBe(true);
    expect(first.leads + second.leads).toBe(6);
    expect(await service.repository.leadArchive.listLeads('acc-halt', ['PRJ-1'])).toEqual([]);
    await waitFor(() => stored.every((s) => erasedEventsOf(s.id).length > 0), 'a Lead Erased for each');
    // The stream has caught up with both runs (every lead's event is in): each was heard of once.
    expect(stored.map((s) => erasedEventsOf(s.id).length)).toEqual(stored.map(() => 1));
  }, 60_000);
});

describe('rejection and quarantine records', () => {
  it("are gone after the account's rejectionRetentionDays, with their lookup items; younger ones stay", async () => {
    const recordsKey = await account('acc-rec', { rejectionDays: 2 });
    const mobile = uniqueMobile();
    const refused = await service.call('portala', { apiKey: recordsKey, body: validBody('portala', { projectID: 'PRJ-404', campaignID: 'CMP-1' }, { mobile_number: mobile }) });
    expect(refused.status).toBe(422);
    const [record] = await service.repository.rejections.listRejections('acc-rec');
    expect(record).toBeDefined();
    const recordAt = Date.parse(record!.at);
    expect((await sweep(new Date(recordAt + DAY_MS))).rejections).toBe(0);
    expect((await service.repository.rejections.listRejections('acc-rec'))).toHaveLength(1);
    const swept = await sweep(new Date(recordAt + 2 * DAY_MS + 1));
    expect(swept.rejections).toBe(1);
    expect((await service.repository.rejections.listRejections('acc-rec'))).toEqual([]);
    expect((await everyItem()).filter((item) => item.includes(mobile))).toEqual([]);
    const found = await new PersonData(service.repository.accounts, service.repository.people).access('acc-rec', { mobile_number: mobile });
    expect(found).toEqual({ leads: [], rejections: [] });
  });
});

describe('a lead stored before the by_age index existed', () => {
  it('is not found by the sweep until `admin backfill-lead-ages` indexes it, then is erased; the backfill run again finds none', async () => {
    const accountKey = await account('acc-r-backfill', { leadDays: 30 });
    const mobile = uniqueMobile();
    const before = await lead(accountKey, { name: `Pre Index ${tag}`, mobile_number: mobile });
    // As a lead stored by the code before the index: no age_pk, no age_at.
    const db = createDocumentClient({ client: service.client });
    const { Items = [] } = await db.send(new ScanCommand({ TableName: service.tables.leads, ConsistentRead: true, FilterExpression: 'id = :id AND item_type = :lead', ExpressionAttributeValues: { ':id': before.id, ':lead': 'lead' } }));
    expect(Items).toHaveLength(1);
    await db.send(new UpdateCommand({ TableName: service.tables.leads, Key: { pk: Items[0]!.pk, sk: Items[0]!.sk }, UpdateExpression: 'REMOVE age_pk, age_at' }));
    const aged = after(before.created_at, 31);
    await sweep(aged);
    expect((await service.repository.leadArchive.listLeads('acc-r-backfill', ['PRJ-1'])).map((stored) => stored.id)).toEqual([before.id]);

    const env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
    let stdout = '';
    const run = () => runAdmin(['backfill-lead-ages', '--json'], { env, stdout: (text) => void (stdout = text), stderr: () => undefined });
    expect(await run()).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ found: expect.any(Number), indexed: expect.any(Number) });
    expect(JSON.parse(stdout).indexed).toBeGreaterThanOrEqual(1);
    await sweep(aged);
    expect(await service.repository.leadArchive.listLeads('acc-r-backfill', ['PRJ-1'])).toEqual([]);
    expect(await run()).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ found: 0, indexed: 0 });
  }, 60_000);
});

describe('the deployed function', () => {
  it('logs its counts and nothing of a person', async () => {
    const lines: string[] = [];
    const handler = retentionSweepHandler(
      { db: createDocumentClient({ client: service.client }), configTable: service.tables.config, leadsTable: service.tables.leads, keyring: containerPersonKeyring(), daySeconds: DAY_SECONDS },
      (line) => void lines.push(line),
    );
    const summary = await asFunction('retention-sweep', () => handler({}, { getRemainingTimeInMillis: () => 600_000 }));
    expect(summary.complete).toBe(true);
    expect(lines.map((line) => JSON.parse(line))).toEqual([{ level: 'info', message: 'retention sweep', ...summary }]);
  });
});
