/**
 * An account's retention settings (CONTRACT.md section 18): `leadRetentionDays` (30 to 3,650, or null:
 * kept until erased) and `rejectionRetentionDays` (1 to 30) through the admin API's `PUT /accounts/{id}`
 * member `retention`, the CLI's `set-retention` and the seed file, each refusing a bad value and
 * changing nothing then; `GET /accounts/{id}` answers them.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { applySeed, parseSeed, SeedError } from '../../scripts/local/seed.ts';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { adminCall } from '../support/admin-handler.ts';
import { testService, type TestService } from '../support/service.ts';

let service: TestService;
let handler: ReturnType<typeof adminHandler>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  service = await testService();
  handler = adminHandler(adminRuntime(service.repository, () => undefined));
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
});

const admin = (method: string, path: string, body?: unknown) => adminCall(handler, method, path, body);
const cli = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};
const newAccountId = () => `acc-${randomUUID().slice(0, 8)}`;
const retentionOf = async (id: string) => (await admin('GET', `/admin/v1/accounts/${id}`)).body.retention;

describe('the admin API', () => {
  it('answers the defaults for an account that never set them: leads kept until erased, rejection records 30 days', async () => {
    const id = newAccountId();
    expect((await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'Harbour Homes' })).body.retention).toEqual({ leadDays: null, rejectionDays: 30 });
    expect(await retentionOf(id)).toEqual({ leadDays: null, rejectionDays: 30 });
  });

  it('sets retention with PUT; a member left out keeps its value, and so does a PUT without retention', async () => {
    const id = newAccountId();
    expect((await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'Harbour Homes', retention: { leadDays: 365, rejectionDays: 7 } })).body.retention).toEqual({ leadDays: 365, rejectionDays: 7 });
    expect((await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'Harbour Homes', retention: { leadDays: 90 } })).body.retention).toEqual({ leadDays: 90, rejectionDays: 7 });
    expect((await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'Harbour Homes Renamed' })).body.retention).toEqual({ leadDays: 90, rejectionDays: 7 });
    expect((await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'Harbour Homes', retention: { leadDays: null } })).body.retention).toEqual({ leadDays: null, rejectionDays: 7 });
  });

  it.each([
    [{ leadDays: 29 }, 'retention.leadDays'],
    [{ leadDays: 3651 }, 'retention.leadDays'],
    [{ leadDays: 45.5 }, 'retention.leadDays'],
    [{ leadDays: '90' }, 'retention.leadDays'],
    [{ rejectionDays: 0 }, 'retention.rejectionDays'],
    [{ rejectionDays: 31 }, 'retention.rejectionDays'],
    [{ rejectionDays: null }, 'retention.rejectionDays'],
    [{ keepForever: true }, 'retention.keepForever'],
    ['forever', 'retention'],
  ])('refuses retention %j with 400 naming %s, and changes nothing', async (retention, field) => {
    const id = newAccountId();
    await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'Kept', retention: { leadDays: 400, rejectionDays: 10 } });
    const answer = await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'Changed', retention });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.errors)).toEqual([field]);
    expect((await admin('GET', `/admin/v1/accounts/${id}`)).body).toMatchObject({ name: 'Kept', retention: { leadDays: 400, rejectionDays: 10 } });
  });
});

describe('admin set-retention', () => {
  it('sets the days given and keeps the others; none keeps leads until erased; --json prints the account’s retention', async () => {
    const id = newAccountId();
    await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'CLI Homes' });
    expect(await cli('set-retention', '--account', id, '--leads', '180')).toEqual({
      code: 0,
      stdout: `Retention of account ${id}: leads 180 day(s), rejection records 30 day(s).\n`,
      stderr: '',
    });
    const json = await cli('set-retention', '--account', id, '--rejections', '3', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ account_id: id, retention: { leadDays: 180, rejectionDays: 3 } });
    expect((await cli('set-retention', '--account', id, '--leads', 'none')).stdout).toContain('leads kept until erased');
    expect(await retentionOf(id)).toEqual({ leadDays: null, rejectionDays: 3 });
  });

  it.each([
    ['--leads', '29'],
    ['--leads', '3651'],
    ['--leads', 'forever'],
    ['--leads', '30.5'],
    ['--rejections', '0'],
    ['--rejections', '31'],
    ['--rejections', 'none'],
  ])('refuses %s %s with exit 2 and changes nothing', async (option, value) => {
    const id = newAccountId();
    await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'CLI Homes', retention: { leadDays: 60, rejectionDays: 5 } });
    const refused = await cli('set-retention', '--account', id, '--leads', '90', option, value);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(option);
    expect(await retentionOf(id)).toEqual({ leadDays: 60, rejectionDays: 5 });
  });

  it('refuses an unknown account with exit 1', async () => {
    expect(await cli('set-retention', '--account', 'acc-nobody-here', '--leads', '90')).toMatchObject({ code: 1, stderr: expect.stringContaining('acc-nobody-here') });
  });
});

describe('the seed file', () => {
  const seedWith = (id: string, retention?: unknown) => ({ accounts: [{ id, name: 'Seeded Homes', ...(retention !== undefined && { retention }) }], apiKeys: [] });

  it('sets an account’s retention; applied again it changes nothing, and one without retention keeps what is stored', async () => {
    const id = newAccountId();
    await applySeed(service.repository, parseSeed(seedWith(id, { leadDays: 730, rejectionDays: 14 })));
    expect(await retentionOf(id)).toEqual({ leadDays: 730, rejectionDays: 14 });
    await applySeed(service.repository, parseSeed(seedWith(id, { leadDays: 730, rejectionDays: 14 })));
    await cli('set-retention', '--account', id, '--rejections', '2');
    await applySeed(service.repository, parseSeed(seedWith(id)));
    expect(await retentionOf(id)).toEqual({ leadDays: 730, rejectionDays: 2 });
  });

  it('refuses a bad value, naming the account and the member', () => {
    expect(() => parseSeed(seedWith('acc-bad', { leadDays: 10 }))).toThrow(SeedError);
    expect(() => parseSeed(seedWith('acc-bad', { leadDays: 10 }))).toThrow(/account "acc-bad"\.retention\.leadDays must be a whole number of days from 30 to 3650/);
    expect(() => parseSeed(seedWith('acc-bad', { rejectionDays: 40 }))).toThrow(/account "acc-bad"\.retention\.rejectionDays/);
  });
});
