/**
 * Connecting Google Ads lead forms with the admin CLI (CONTRACT.md section 10, exit codes as section
 * 7): add-google-form, rotate-google-form-key, google-forms and remove-google-form, each seen by the
 * webhook at once, and `admin rejections` naming a Google lead by its lead id.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { uniqueMobile } from '../support/service.ts';
import { googleLeadId, googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';

let google: GoogleTestService;
let env: NodeJS.ProcessEnv;

const admin = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

const add = (formId: string, account = 'acc-cli', project = 'PRJ-1', campaign = 'CMP-1', ...more: string[]) =>
  admin('add-google-form', '--account', account, '--form-id', formId, '--project', project, '--campaign', campaign, ...more);
const deliver = (formId: string, key: string, leadId = googleLeadId()) => google.deliver({ leadId, formId, key, columns: standardColumns(uniqueMobile()) });

beforeAll(async () => {
  // TTL 0: the webhook sees each change at once, so each test sees what the store holds.
  google = await googleTestService({ configCacheTtlSeconds: 0 });
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: google.tables.config, LEADS_TABLE_NAME: google.tables.leads };
  await google.seedAccount({ id: 'acc-cli', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  await google.seedAccount({ id: 'acc-other', projects: { 'PRJ-1': ['CMP-1'] } });
});

describe('admin add-google-form', () => {
  it('prints the new key alone on standard output, and where to paste it on standard error; the webhook takes it', async () => {
    const { code, stdout, stderr } = await add('46000000001');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^gk_[\w-]{32}\n$/);
    expect(stderr).toContain('Google Ads form 46000000001 is connected to account acc-cli (project PRJ-1, campaign CMP-1). The key is shown only this once');
    expect(stderr).toContain('/api/google-ads-lead-webhook');
    expect(stderr).not.toContain(stdout.trim());
    expect((await deliver('46000000001', stdout.trim())).body).toEqual({ status: true, message: 'Lead received' });
  });

  it('prints form_id, account_id, project_id, campaign_id and key with --json, and stores only the key hash', async () => {
    const { code, stdout } = await add('46000000002', 'acc-cli', 'PRJ-1', 'CMP-1', '--json');
    expect(code).toBe(0);
    const printed = JSON.parse(stdout);
    expect(printed).toEqual({ form_id: '46000000002', account_id: 'acc-cli', project_id: 'PRJ-1', campaign_id: 'CMP-1', key: expect.stringMatching(/^gk_/) });
    const { Items = [] } = await createDocumentClient({ client: google.client }).send(new ScanCommand({ TableName: google.tables.config }));
    expect(JSON.stringify(Items)).not.toContain(printed.key);
  });

  it('reconnects a form of the account to another project and campaign, keeping its key and printing none', async () => {
    const key = (await add('46000000003')).stdout.trim();
    const again = await add('46000000003', 'acc-cli', 'PRJ-2', 'CMP-2');
    expect(again).toEqual({ code: 0, stdout: 'Google Ads form 46000000003 of account acc-cli now sends its leads to project PRJ-2, campaign CMP-2; its key is unchanged.\n', stderr: '' });
    const leadId = googleLeadId();
    await deliver('46000000003', key, leadId);
    expect((await google.leadsOf('acc-cli', ['PRJ-2'])).find((lead) => lead.google_lead_id === leadId)).toMatchObject({ projectID: 'PRJ-2', campaignID: 'CMP-2' });
  });

  it('refuses a form connected to another account: exit 1, named, nothing changed', async () => {
    const key = (await add('46000000004', 'acc-other')).stdout.trim();
    expect(await add('46000000004')).toEqual({ code: 1, stdout: '', stderr: 'admin add-google-form: Form 46000000004 is connected to another account\n' });
    expect((await deliver('46000000004', key)).status).toBe(200);
    expect(await google.leadsOf('acc-other')).toHaveLength(1);
  });

  it.each([
    ['an unknown account', ['46000000005', 'acc-none'], 'account "acc-none" does not exist'],
    ['an unknown project', ['46000000005', 'acc-cli', 'PRJ-9', 'CMP-1'], 'project "PRJ-9" is not an active project of account "acc-cli"'],
    ['a campaign of another project', ['46000000005', 'acc-cli', 'PRJ-1', 'CMP-2'], 'campaign "CMP-2" is not an active campaign of that project'],
  ])('refuses %s: exit 1', async (_case, args, message) => {
    const [formId, account, project, campaign] = args as [string, string?, string?, string?];
    const { code, stderr } = await add(formId, account, project, campaign);
    expect([code, stderr]).toEqual([1, `admin add-google-form: ${message}\n`]);
    expect(JSON.parse((await admin('google-forms', '--account', 'acc-cli', '--json')).stdout).map((form: { form_id: string }) => form.form_id)).not.toContain('46000000005');
  });

  it.each([
    ['a form id that is not digits', ['add-google-form', '--account', 'acc-cli', '--form-id', 'abc', '--project', 'PRJ-1', '--campaign', 'CMP-1'], '--form-id: the form id must be the Google Ads form id'],
    ['no --campaign', ['add-google-form', '--account', 'acc-cli', '--form-id', '46000000006', '--project', 'PRJ-1'], '--campaign is required'],
    ['no --form-id to rotate', ['rotate-google-form-key'], '--form-id is required'],
  ])('refuses %s: exit 2 with the usage', async (_case, argv, message) => {
    const { code, stderr } = await admin(...argv);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).toContain('Usage: npm run admin -- ');
  });
});

describe('admin rotate-google-form-key, google-forms and remove-google-form', () => {
  it('rotates a key: the new one printed once works, the old one answers 401 at once', async () => {
    const old = (await add('46000000010')).stdout.trim();
    const rotated = await admin('rotate-google-form-key', '--form-id', '46000000010', '--json');
    expect(rotated.code).toBe(0);
    const printed = JSON.parse(rotated.stdout);
    expect(printed).toEqual({ form_id: '46000000010', account_id: 'acc-cli', project_id: 'PRJ-1', campaign_id: 'CMP-1', key: expect.stringMatching(/^gk_/) });
    expect((await deliver('46000000010', old)).status).toBe(401);
    expect((await deliver('46000000010', printed.key)).status).toBe(200);
  });

  it('refuses to rotate the key of a form no account has: exit 1', async () => {
    expect(await admin('rotate-google-form-key', '--form-id', '46000009999')).toEqual({ code: 1, stdout: '', stderr: 'admin rotate-google-form-key: Form 46000009999 is not connected\n' });
  });

  it('lists the forms of an account, never a key or hash, as a table or as JSON', async () => {
    await add('46000000011');
    const table = await admin('google-forms', '--account', 'acc-cli');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^form_id\s+project\s+campaign\s+connected_at\n/);
    expect(table.stdout).toMatch(/46000000011\s+PRJ-1\s+CMP-1\s+\d{4}-/);
    const listed = JSON.parse((await admin('google-forms', '--account', 'acc-cli', '--json')).stdout);
    expect(listed).toContainEqual({ form_id: '46000000011', project_id: 'PRJ-1', campaign_id: 'CMP-1', connected_at: expect.any(String) });
    expect(JSON.stringify(listed)).not.toMatch(/gk_|hash/);
    expect((await admin('google-forms', '--account', 'acc-none')).code).toBe(1);
  });

  it('removes a form: its deliveries answer 401, it is no longer listed, and removing it again fails with exit 1', async () => {
    const key = (await add('46000000012')).stdout.trim();
    expect(await admin('remove-google-form', '--form-id', '46000000012')).toEqual({ code: 0, stdout: 'Google Ads form 46000000012 is disconnected.\n', stderr: '' });
    expect((await deliver('46000000012', key)).status).toBe(401);
    expect((await admin('google-forms', '--account', 'acc-cli')).stdout).not.toContain('46000000012');
    expect((await admin('remove-google-form', '--form-id', '46000000012')).code).toBe(1);
  });
});

describe('admin rejections', () => {
  it("names a Google lead that did not become a lead by its lead id, with --json carrying google_lead_id", async () => {
    const key = (await add('46000000020')).stdout.trim();
    const leadId = googleLeadId();
    await google.deliver({ leadId, formId: '46000000020', key, isTest: true, columns: standardColumns(uniqueMobile()) });
    const table = await admin('rejections', '--account', 'acc-cli');
    expect(table.stdout).toContain(`google_ads lead ${leadId}`);
    expect(table.stdout).toContain('google_test_lead');
    const records = JSON.parse((await admin('rejections', '--account', 'acc-cli', '--json')).stdout);
    expect(records).toContainEqual(expect.objectContaining({ endpoint: 'google_ads', reason: 'google_test_lead', google_lead_id: leadId }));
  });
});
