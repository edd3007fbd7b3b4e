import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { listKeys, rotateKey } from '../../shared/domain/api-keys.ts';
import { InvalidKeyOptionError } from '../../shared/domain/errors.ts';
import { adminApi } from '../support/admin-handler.ts';
import { endpointNames, testService, validBody, type TestService } from '../support/service.ts';

/** A key limited to dry runs (CONTRACT.md section 19): what the canary sends with. */
let service: TestService;
let dryRunsKey: string;
let dryRunsKeyId: string;
const ACCOUNT = 'acc-dry-runs-only';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const ONLY_DRY_RUNS = { status: false, message: 'Only dry runs are allowed with this API key' };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
  ({ key: dryRunsKey, keyId: dryRunsKeyId } = await service.issueScopedKey({ accountId: ACCOUNT, dryRunsOnly: true, label: 'canary' }));
});

const stored = async () => ({
  leads: (await service.repository.leadArchive.listLeads(ACCOUNT, ['PRJ-1'])).length,
  rejections: (await service.repository.rejections.listRejections(ACCOUNT)).length,
});

describe('a key limited to dry runs', () => {
  it.each(endpointNames)('answers a real submission to %s 403, and stores nothing', async (name) => {
    const before = await stored();
    const answer = await service.call(name, { apiKey: dryRunsKey, body: validBody(name, project) });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 403, body: ONLY_DRY_RUNS });
    expect(answer.headers?.['x-request-id']).toEqual(expect.any(String));
    expect(await stored()).toEqual(before);
  });

  it.each(endpointNames)('makes a dry run on %s as any key does, storing nothing', async (name) => {
    const before = await stored();
    const answer = await service.call(name, { apiKey: dryRunsKey, body: validBody(name, project), headers: { 'x-dry-run': 'true' } });
    expect(answer).toMatchObject({ status: 200, body: { status: true, message: 'Lead would be created', dry_run: true } });
    expect(await stored()).toEqual(before);
  });

  it('is refused right after the key check: before the size, Content-Type and JSON checks', async () => {
    const answer = await service.call('portala', { apiKey: dryRunsKey, rawBody: 'x'.repeat(70_000), headers: { 'content-type': 'text/plain' } });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 403, body: ONLY_DRY_RUNS });
    expect((await service.call('portala', { apiKey: 'not-a-key', body: validBody('portala', project) })).status).toBe(401);
  });

  it('is listed as such, and a rotation keeps it', async () => {
    const listed = await listKeys(service.keyAdmin(), ACCOUNT);
    expect(listed.find((key) => key.key_id === dryRunsKeyId)).toMatchObject({ dry_runs_only: true, label: 'canary' });
    const rotated = await rotateKey(service.keyAdmin(), { keyId: dryRunsKeyId, graceSeconds: 0 });
    expect(rotated.dry_runs_only).toBe(true);
    const answer = await service.call('social', { apiKey: rotated.key, body: validBody('social', project) });
    expect(answer.body).toEqual(ONLY_DRY_RUNS);
    dryRunsKey = rotated.key;
  });

  it('is not a browser key, nor a source’s own key', async () => {
    await expect(service.issueScopedKey({ accountId: ACCOUNT, dryRunsOnly: true, origins: ['https://shop.example'] })).rejects.toBeInstanceOf(InvalidKeyOptionError);
    await expect(service.issueScopedKey({ accountId: ACCOUNT, dryRunsOnly: true, endpoints: ['calls'] })).rejects.toBeInstanceOf(InvalidKeyOptionError);
  });

  it('is made through the admin API with "dryRunsOnly": true, and a key made without it is not limited', async () => {
    const admin = adminApi(service);
    const made = await admin('POST', `/admin/v1/accounts/${ACCOUNT}/keys`, { dryRunsOnly: true });
    expect(made).toMatchObject({ status: 201, body: { dry_runs_only: true } });
    expect((await service.call('portalb', { apiKey: made.body.key, body: validBody('portalb', project) })).body).toEqual(ONLY_DRY_RUNS);
    const plain = await admin('POST', `/admin/v1/accounts/${ACCOUNT}/keys`, {});
    expect(plain.body).not.toHaveProperty('dry_runs_only');
    expect((await admin('POST', `/admin/v1/accounts/${ACCOUNT}/keys`, { dryRunsOnly: 'yes' })).status).toBe(400);
    expect((await admin('POST', `/admin/v1/accounts/${ACCOUNT}/keys`, { dryRunsOnly: true, origins: ['https://shop.example'] })).status).toBe(400);
  });

  it('is made by admin create-key --dry-runs-only, and shown by list-keys; a browser key with it is bad arguments (exit 2)', async () => {
    const env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
    const admin = async (...argv: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
      return { code, stdout, stderr };
    };
    const made = await admin('create-key', '--account', ACCOUNT, '--dry-runs-only', '--json');
    expect(made.code).toBe(0);
    const issued = JSON.parse(made.stdout) as { key: string; key_id: string; dry_runs_only?: boolean };
    expect(issued.dry_runs_only).toBe(true);
    expect((await service.call('website', { apiKey: issued.key, body: validBody('website', project) })).body).toEqual(ONLY_DRY_RUNS);
    const table = (await admin('list-keys', '--account', ACCOUNT)).stdout.split('\n');
    expect(table[0]).toMatch(/\sdry_runs_only$/);
    expect(table.find((line) => line.startsWith(issued.key_id))).toMatch(/\syes$/);
    const browser = await admin('create-key', '--account', ACCOUNT, '--dry-runs-only', '--origins', 'https://shop.example');
    expect(browser.code).toBe(2);
    expect(browser.stderr).toMatch(/^admin create-key: --dry-runs-only: a browser key may not make dry runs/);
  });
});
