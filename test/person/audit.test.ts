/**
 * Every look at a person's data, on record (CONTRACT.md section 18), against DynamoDB Local: one audit
 * entry per admin operation that returns or erases a person's data, through the admin API (signed, its
 * principal from the request context) and the admin CLI (`local cli`), written before the answer; none
 * for operations that carry no one's data; no name, number or e-mail in any entry; entries outliving
 * the erasure of their subject; pages newest first; and no answer when the entry cannot be written.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { containerPersonKeyring } from '../../shared/person-keyring.ts';
import { adminApi, adminCall, TEST_ADMIN_PRINCIPAL } from '../support/admin-handler.ts';
import { failFirst, injectFaults, namedError } from '../support/faults.ts';
import { testService, uniqueMobile, validBody, type Answer, type TestService } from '../support/service.ts';

const SHOP = 'https://shop.example';
const ACCOUNT = 'acc-audit';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const NAME = 'Kavya Raghunathan';
const EMAIL = 'kavya.audit@example.com';

let service: TestService;
let api: (method: string, pathAndQuery: string, body?: unknown) => Promise<Answer>;
let apiKey: string;
let browserKey: string;
let env: NodeJS.ProcessEnv;
const mobile = uniqueMobile();

const admin = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

interface Entry {
  at: string;
  account_id: string;
  operation: string;
  principal: string;
  request_id: string;
  subject: string | null;
  count: number;
}

/** Every entry of the account, newest first, read from the store (not through an audited listing). */
const allEntries = async (accountId = ACCOUNT): Promise<Entry[]> => {
  const entries: Entry[] = [];
  let cursor: string | undefined;
  do {
    const page = await service.repository.audit.page(accountId, { limit: 200, ...(cursor && { cursor }) });
    entries.push(...(page.items as Entry[]));
    cursor = page.next ?? undefined;
  } while (cursor);
  return entries;
};

/** The entries written while `run` ran, oldest first. */
const entriesOf = async (run: () => Promise<unknown>): Promise<Entry[]> => {
  const before = new Set((await allEntries()).map((entry) => JSON.stringify(entry)));
  await run();
  return (await allEntries()).filter((entry) => !before.has(JSON.stringify(entry))).reverse();
};

const digestOf = (value: string, kind: 'mobile' | 'email' = 'mobile') => containerPersonKeyring().digest({ kind, value });

beforeAll(async () => {
  service = await testService();
  api = adminApi(service);
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
  await service.seedAccount({ id: ACCOUNT, duplicateSetting: 'create', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
  await service.seedAccount({ id: 'acc-audit-quiet', projects: { 'PRJ-1': ['CMP-1'] } });
  apiKey = await service.issueKey(ACCOUNT);
  browserKey = (await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP] })).key;
  // Two leads of the person, and one refused submission that carried their number (an unknown project).
  for (let i = 0; i < 2; i++) {
    expect((await service.call('portala', { apiKey, body: validBody('portala', project, { name: NAME, mobile_number: mobile, email: EMAIL }) })).status).toBe(200);
  }
  expect((await service.call('portala', { apiKey, body: validBody('portala', { projectID: 'PRJ-9', campaignID: 'CMP-1' }, { name: NAME, mobile_number: mobile }) })).status).toBe(422);
}, 30_000);

describe('the admin API', () => {
  it('records an access request before answering it: who signed, the answer’s request id, a keyed hash of the number, how many records', async () => {
    let answer: Answer | undefined;
    const written = await entriesOf(async () => (answer = await api('GET', `/admin/v1/accounts/${ACCOUNT}/people?mobile_number=${encodeURIComponent(`+91 ${mobile}`)}`)));
    expect(answer!.status).toBe(200);
    expect(answer!.body.leads).toHaveLength(2);
    expect(answer!.body.rejections).toHaveLength(1);
    expect(written).toEqual([
      {
        at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        account_id: ACCOUNT,
        operation: 'person_access',
        principal: TEST_ADMIN_PRINCIPAL.userArn,
        request_id: answer!.headers['x-request-id'],
        subject: await digestOf(mobile),
        count: 3,
      },
    ]);
  });

  it('names the signer by its access key id where the request context gives no principal ARN (npm start’s local credentials)', async () => {
    const handler = adminHandler(adminRuntime(service.repository, () => undefined));
    const written = await entriesOf(() => adminCall(handler, 'GET', `/admin/v1/accounts/${ACCOUNT}/people?email=${encodeURIComponent(EMAIL.toUpperCase())}`, undefined, { iam: { accessKey: 'LOCALADMINKEY' } }));
    expect(written).toMatchObject([{ operation: 'person_access', principal: 'LOCALADMINKEY', subject: await digestOf(EMAIL, 'email'), count: 2 }]);
  });

  it('records a page of the rejection log and a release, each once', async () => {
    const listed = await entriesOf(() => api('GET', `/admin/v1/accounts/${ACCOUNT}/rejections?limit=200`));
    expect(listed).toMatchObject([{ operation: 'rejections_list', subject: null, count: 1, principal: TEST_ADMIN_PRINCIPAL.userArn }]);

    const caught = await service.call('website', { apiKey: browserKey, headers: { origin: SHOP }, body: validBody('website', project, { company_website: 'https://spam.example' }) });
    expect(caught.status).toBe(200);
    const [record] = (await service.repository.rejections.page(ACCOUNT, { limit: 1, reason: 'honeypot' })).items;
    let released: Answer | undefined;
    const written = await entriesOf(async () => (released = await api('POST', `/admin/v1/accounts/${ACCOUNT}/rejections/${record!.id}/release`)));
    expect(released!.status).toBe(200);
    expect(written).toMatchObject([{ operation: 'release', subject: null, count: 1, request_id: released!.headers['x-request-id'] }]);
  });

  it('records nothing for operations that return no one’s data, nor for a refused request', async () => {
    const written = await entriesOf(async () => {
      expect((await api('GET', `/admin/v1/accounts/${ACCOUNT}`)).status).toBe(200);
      expect((await api('GET', `/admin/v1/accounts/${ACCOUNT}/keys`)).status).toBe(200);
      expect((await api('GET', `/admin/v1/accounts/${ACCOUNT}/sources`)).status).toBe(200);
      expect((await api('GET', `/admin/v1/accounts/${ACCOUNT}/people?mobile_number=12345`)).status).toBe(400);
      expect((await api('GET', `/admin/v1/accounts/acc-nobody/people?mobile_number=${mobile}`)).status).toBe(404);
    });
    expect(written).toEqual([]);
    expect(await allEntries('acc-nobody')).toEqual([]);
  });

  it('lists the audit newest first, by operation and since a time, page by page; listing it is itself recorded', async () => {
    const quiet = 'acc-audit-quiet';
    for (let i = 0; i < 5; i++) expect((await api('GET', `/admin/v1/accounts/${quiet}/people?mobile_number=${uniqueMobile()}`)).status).toBe(200);
    const seen: Entry[] = [];
    let cursor: string | null = null;
    do {
      const answer: Answer = await api('GET', `/admin/v1/accounts/${quiet}/audit?operation=person_access&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(answer.status).toBe(200);
      expect(answer.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...answer.body.items);
      cursor = answer.body.next;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(seen.map((entry) => entry.at)).toEqual([...seen.map((entry) => entry.at)].sort().reverse());
    expect(new Set(seen.map((entry) => entry.request_id)).size).toBe(5);

    // Each of the three pages was itself a look at the audit.
    const lists = (await allEntries(quiet)).filter((entry) => entry.operation === 'audit_list');
    expect(lists.map((entry) => entry.count)).toEqual([1, 2, 2]);

    const since = seen[1]!.at;
    const recent = await api('GET', `/admin/v1/accounts/${quiet}/audit?operation=person_access&since=${encodeURIComponent(since)}`);
    expect(recent.body.items.map((entry: Entry) => entry.request_id)).toEqual(seen.filter((entry) => entry.at >= since).map((entry) => entry.request_id));
  });

  it('refuses a bad operation, time or cursor with 400, and an unknown account with 404', async () => {
    expect((await api('GET', `/admin/v1/accounts/${ACCOUNT}/audit?operation=peek`)).body).toMatchObject({ status: false, errors: { operation: [expect.stringContaining('operation must be one of person_access')] } });
    expect((await api('GET', `/admin/v1/accounts/${ACCOUNT}/audit?since=yesterday`)).status).toBe(400);
    expect((await api('GET', `/admin/v1/accounts/${ACCOUNT}/audit?cursor=abc`)).status).toBe(400);
    expect((await api('GET', '/admin/v1/accounts/acc-nobody/audit')).status).toBe(404);
  });
});

describe('the admin CLI', () => {
  it('records person, leads, rejections and audit as `local cli`, with the same words as the API', async () => {
    const written = await entriesOf(async () => {
      expect((await admin('person', '--account', ACCOUNT, '--mobile', mobile, '--json')).code).toBe(0);
      expect((await admin('leads', '--account', ACCOUNT, '--json')).code).toBe(0);
      expect((await admin('rejections', '--account', ACCOUNT, '--json')).code).toBe(0);
      const listed = await admin('audit', '--account', ACCOUNT, '--operation', 'person_access', '--json');
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout)[0]).toMatchObject({ operation: 'person_access', principal: 'local cli', subject: await digestOf(mobile), count: 3 });
    });
    expect(written.map((entry) => [entry.operation, entry.principal])).toEqual([
      ['person_access', 'local cli'],
      ['leads_list', 'local cli'],
      ['rejections_list', 'local cli'],
      ['audit_list', 'local cli'],
    ]);
    expect(written[1]!.count).toBe(3); // the person's two leads and the released one
    expect(written.every((entry) => entry.request_id.startsWith('cli-'))).toBe(true);
  });

  it('records nothing for a refused command: a bad mobile (exit 2), an unknown account (exit 1), a bad --operation (exit 2)', async () => {
    const written = await entriesOf(async () => {
      expect((await admin('person', '--account', ACCOUNT, '--mobile', '12345')).code).toBe(2);
      expect((await admin('erase', '--account', 'acc-nobody', '--mobile', mobile)).code).toBe(1);
      expect((await admin('audit', '--account', ACCOUNT, '--operation', 'peek')).code).toBe(2);
    });
    expect(written).toEqual([]);
  });
});

describe('an erasure', () => {
  it('is recorded with what it erased, and the entries about its person outlive it; no entry holds a name, number or e-mail', async () => {
    const written = await entriesOf(async () => expect((await admin('erase', '--account', ACCOUNT, '--mobile', mobile, '--json')).code).toBe(0));
    expect(written).toMatchObject([{ operation: 'person_erasure', principal: 'local cli', subject: await digestOf(mobile), count: 3 }]);
    const apiErasure = await entriesOf(() => api('POST', `/admin/v1/accounts/${ACCOUNT}/erasures`, { email: EMAIL }));
    expect(apiErasure).toMatchObject([{ operation: 'person_erasure', subject: await digestOf(EMAIL, 'email'), count: 0 }]);

    const subject = await digestOf(mobile);
    expect((await allEntries()).filter((entry) => entry.subject === subject && entry.operation === 'person_access').length).toBeGreaterThanOrEqual(2);
    const text = JSON.stringify(await Promise.all([allEntries(), allEntries('acc-audit-quiet')]));
    for (const personal of [mobile, EMAIL, EMAIL.toUpperCase(), NAME, 'Asha Verma']) expect(text).not.toContain(personal);
  });
});

describe('an audit entry that cannot be written', () => {
  it('makes the operation answer 503 with nothing of its answer, and the same request once it can be written is answered and recorded', async () => {
    const failing = failFirst('PutItemCommand', 2, () => namedError('ProvisionedThroughputExceededException', 'throttled'));
    const faulty = await testService({ instrument: (client) => injectFaults(client, failing.fault) });
    await faulty.seedAccount({ id: 'acc-audit-down', projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await faulty.issueKey('acc-audit-down');
    const person = uniqueMobile();
    expect((await faulty.call('portala', { apiKey: key, body: validBody('portala', project, { mobile_number: person }) })).status).toBe(200);

    failing.arm();
    const answer = await adminApi(faulty)('GET', `/admin/v1/accounts/acc-audit-down/people?mobile_number=${person}`);
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ status: false, message: 'Service temporarily unavailable, please retry' });
    expect(answer.headers['retry-after']).toBeDefined();
    expect(JSON.stringify(answer)).not.toContain(person);
    expect(failing.failures()).toBe(1);
    expect((await faulty.repository.audit.page('acc-audit-down', { limit: 10 })).items).toEqual([]);

    // Once the entry can be written, the same request is answered, and recorded.
    failing.disarm();
    expect((await adminApi(faulty)('GET', `/admin/v1/accounts/acc-audit-down/people?mobile_number=${person}`)).status).toBe(200);
    expect((await faulty.repository.audit.page('acc-audit-down', { limit: 10 })).items).toHaveLength(1);
  });
});
