/**
 * WhatsApp numbers as configuration (CONTRACT.md sections 14 and 15), through the admin CLI, the admin
 * API and the seed, against DynamoDB Local: a number is Meta's phone_number_id (1 to 200 digits) and
 * belongs to one account; connecting again moves it; another account's is refused; a removed number is
 * not found, and a seed never connects it back. What the webhook does with a connected, moved or
 * removed number is test/whatsapp's handler tests'.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { applySeed, parseSeed } from '../../scripts/local/seed.ts';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { whatsappNumberConnectionKey } from '../../shared/whatsapp/wire-names.ts';
import { adminCall } from '../support/admin-handler.ts';
import { testService, type TestService } from '../support/service.ts';

let service: TestService;
let env: NodeJS.ProcessEnv;
let handler: ReturnType<typeof adminHandler>;
const base = '/admin/v1/accounts/acc-wa';
let sequence = 0;
/** A phone number id no other test uses: Meta's are 15 or 16 digits. */
const phoneNumberId = () => `1065${String(Date.now()).slice(-8)}${String(sequence++).padStart(4, '0')}`;

beforeAll(async () => {
  service = await testService();
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
  await service.seedAccount({ id: 'acc-wa', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] }, social: ['wp'] });
  await service.seedAccount({ id: 'acc-wa-other', projects: { 'PRJ-1': ['CMP-1'] }, social: ['wp'] });
  handler = adminHandler(adminRuntime(service.repository, () => undefined));
});

const cli = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};
const api = (method: string, path: string, body?: unknown) => adminCall(handler, method, path, body);
const stored = (id: string) => service.repository.connections(whatsappNumberConnectionKey).findConnection(id);
const listed = async (account = 'acc-wa') => JSON.parse((await cli('whatsapp-numbers', '--account', account, '--json')).stdout) as { phone_number_id: string }[];

describe('admin add-whatsapp-number, whatsapp-numbers and remove-whatsapp-number', () => {
  it('connects a number to a project and campaign, and says where to subscribe the webhook', async () => {
    const id = phoneNumberId();
    const added = await cli('add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', id, '--project', 'PRJ-1', '--campaign', 'CMP-1');
    expect(added).toMatchObject({ code: 0, stdout: `WhatsApp number ${id} is connected to account acc-wa (project PRJ-1, campaign CMP-1).\n` });
    expect(added.stderr).toContain('/api/whatsapp-webhook');
    expect(added.stderr).toContain('"messages"');
    expect(await stored(id)).toMatchObject({ accountId: 'acc-wa', projectId: 'PRJ-1', campaignId: 'CMP-1' });
  });

  it('connecting again changes its project and campaign and keeps when it was connected; --json prints the contract’s fields', async () => {
    const id = phoneNumberId();
    const first = JSON.parse((await cli('add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', id, '--project', 'PRJ-1', '--campaign', 'CMP-1', '--json')).stdout);
    expect(first).toEqual({ phone_number_id: id, project_id: 'PRJ-1', campaign_id: 'CMP-1', connected_at: expect.stringMatching(/Z$/) });
    const again = await cli('add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', ` ${id} `, '--project', 'PRJ-2', '--campaign', 'CMP-2');
    expect(again).toMatchObject({ code: 0, stdout: `Chats with WhatsApp number ${id} now become leads of project PRJ-2, campaign CMP-2.\n`, stderr: '' });
    expect((await listed()).filter((n) => n.phone_number_id === id)).toEqual([{ ...first, project_id: 'PRJ-2', campaign_id: 'CMP-2' }]);
  });

  it('lists the account’s numbers, as a table and with --json, and none of another account’s', async () => {
    const mine = phoneNumberId();
    const theirs = phoneNumberId();
    await cli('add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', mine, '--project', 'PRJ-1', '--campaign', 'CMP-1');
    await cli('add-whatsapp-number', '--account', 'acc-wa-other', '--phone-number-id', theirs, '--project', 'PRJ-1', '--campaign', 'CMP-1');
    expect((await listed()).map((n) => n.phone_number_id)).toEqual(expect.arrayContaining([mine]));
    expect((await listed()).map((n) => n.phone_number_id)).not.toContain(theirs);
    const table = await cli('whatsapp-numbers', '--account', 'acc-wa');
    expect(table.stdout).toContain('phone_number_id');
    expect(table.stdout).toContain(mine);
  });

  it('refuses a number connected to another account: exit 1, naming it, and changes nothing', async () => {
    const id = phoneNumberId();
    await cli('add-whatsapp-number', '--account', 'acc-wa-other', '--phone-number-id', id, '--project', 'PRJ-1', '--campaign', 'CMP-1');
    const refused = await cli('add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', id, '--project', 'PRJ-2', '--campaign', 'CMP-2');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`WhatsApp number ${id} is connected to another account`);
    expect(await stored(id)).toMatchObject({ accountId: 'acc-wa-other', projectId: 'PRJ-1' });
    // Nor may the account remove it.
    expect((await cli('remove-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', id)).code).toBe(1);
    expect(await stored(id)).toMatchObject({ accountId: 'acc-wa-other' });
  });

  it('removes a number: it is no longer connected or listed, removing it again exits 1, and another account may then connect it', async () => {
    const id = phoneNumberId();
    await cli('add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', id, '--project', 'PRJ-1', '--campaign', 'CMP-1');
    expect(await cli('remove-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', id)).toMatchObject({ code: 0, stdout: `WhatsApp number ${id} of account acc-wa is disconnected.\n` });
    expect(await stored(id)).toBeUndefined();
    expect((await listed()).map((n) => n.phone_number_id)).not.toContain(id);
    expect((await cli('remove-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', id)).code).toBe(1);
    expect((await cli('add-whatsapp-number', '--account', 'acc-wa-other', '--phone-number-id', id, '--project', 'PRJ-1', '--campaign', 'CMP-1')).code).toBe(0);
    expect(await stored(id)).toMatchObject({ accountId: 'acc-wa-other' });
  });

  it.each([
    ['an id that is not digits', ['add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', '+91 80 4718 1234', '--project', 'PRJ-1', '--campaign', 'CMP-1'], 2],
    ['an id over 200 digits', ['add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', '1'.repeat(201), '--project', 'PRJ-1', '--campaign', 'CMP-1'], 2],
    ['no id', ['add-whatsapp-number', '--account', 'acc-wa', '--project', 'PRJ-1', '--campaign', 'CMP-1'], 2],
    ['an unknown project', ['add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', '106599990001', '--project', 'PRJ-9', '--campaign', 'CMP-1'], 1],
    ['a campaign of another project', ['add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', '106599990001', '--project', 'PRJ-1', '--campaign', 'CMP-2'], 1],
    ['an unknown account', ['add-whatsapp-number', '--account', 'acc-none', '--phone-number-id', '106599990001', '--project', 'PRJ-1', '--campaign', 'CMP-1'], 1],
    ['an unknown account’s list', ['whatsapp-numbers', '--account', 'acc-none'], 1],
    ['a number not connected', ['remove-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', '106599990002'], 1],
  ])('exits %s with its code, connecting nothing', async (_case, argv, code) => {
    expect((await cli(...argv)).code).toBe(code);
    expect(await stored('106599990001')).toBeUndefined();
  });

  it('an id of exactly 200 digits is a number', async () => {
    const id = `9${phoneNumberId()}`.padEnd(200, '7');
    expect((await cli('add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', id, '--project', 'PRJ-1', '--campaign', 'CMP-1')).code).toBe(0);
    expect(await stored(id)).toMatchObject({ accountId: 'acc-wa' });
  });
});

describe('the admin API’s WhatsApp numbers', () => {
  it('PUT connects a new number (201), connects it again elsewhere (200); GET lists it; DELETE removes it (204), then 404', async () => {
    const id = phoneNumberId();
    const created = await api('PUT', `${base}/whatsapp-numbers/${id}`, { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(created).toMatchObject({ status: 201, body: { phone_number_id: id, project_id: 'PRJ-1', campaign_id: 'CMP-1', connected_at: expect.any(String) } });
    expect(created.headers['x-request-id']).toEqual(expect.any(String));
    const changed = await api('PUT', `${base}/whatsapp-numbers/${id}`, { projectId: 'PRJ-2', campaignId: 'CMP-2' });
    expect(changed).toMatchObject({ status: 200, body: { phone_number_id: id, project_id: 'PRJ-2', campaign_id: 'CMP-2', connected_at: created.body.connected_at } });
    expect(await stored(id)).toMatchObject({ projectId: 'PRJ-2', campaignId: 'CMP-2' });
    expect((await api('GET', `${base}/whatsapp-numbers`)).body).toContainEqual(changed.body);
    expect(await api('DELETE', `${base}/whatsapp-numbers/${id}`)).toMatchObject({ status: 204 });
    expect(await api('DELETE', `${base}/whatsapp-numbers/${id}`)).toMatchObject({ status: 404, body: { status: false, message: 'WhatsApp number not found' } });
    expect((await api('GET', `${base}/whatsapp-numbers`)).body.map((n: { phone_number_id: string }) => n.phone_number_id)).not.toContain(id);
  });

  it('answers 409 for a number of another account, and 404 to its removal, changing nothing', async () => {
    const id = phoneNumberId();
    await api('PUT', `/admin/v1/accounts/acc-wa-other/whatsapp-numbers/${id}`, { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(await api('PUT', `${base}/whatsapp-numbers/${id}`, { projectId: 'PRJ-1', campaignId: 'CMP-1' })).toMatchObject({
      status: 409,
      body: { status: false, message: 'WhatsApp number is connected to another account' },
    });
    expect(await api('DELETE', `${base}/whatsapp-numbers/${id}`)).toMatchObject({ status: 404, body: { message: 'WhatsApp number not found' } });
    expect(await stored(id)).toMatchObject({ accountId: 'acc-wa-other' });
  });

  it.each([
    ['an unknown project', { projectId: 'PRJ-9', campaignId: 'CMP-1' }, 'Project not found'],
    ['a campaign of another project', { projectId: 'PRJ-1', campaignId: 'CMP-2' }, 'Campaign not found'],
  ])('answers %s 404, connecting nothing', async (_case, body, message) => {
    expect(await api('PUT', `${base}/whatsapp-numbers/106599990010`, body)).toMatchObject({ status: 404, body: { status: false, message } });
    expect(await stored('106599990010')).toBeUndefined();
  });

  it('answers 400 naming each problem for an id that is not digits, a missing campaign and an unknown field', async () => {
    const answer = await api('PUT', `${base}/whatsapp-numbers/not-an-id`, { projectId: 'PRJ-1', colour: 'red' });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.errors).sort()).toEqual(['campaignId', 'colour', 'phoneNumberId']);
  });

  it('answers an unknown account 404 Account not found', async () => {
    expect(await api('GET', '/admin/v1/accounts/acc-none/whatsapp-numbers')).toMatchObject({ status: 404, body: { message: 'Account not found' } });
    expect(await api('PUT', '/admin/v1/accounts/acc-none/whatsapp-numbers/106599990011', { projectId: 'PRJ-1', campaignId: 'CMP-1' })).toMatchObject({ status: 404, body: { message: 'Account not found' } });
    expect(await api('DELETE', '/admin/v1/accounts/acc-none/whatsapp-numbers/106599990011')).toMatchObject({ status: 404, body: { message: 'Account not found' } });
  });
});

describe('the seed', () => {
  const seedOf = (id: string, accounts: readonly string[] = ['acc-wa']) =>
    parseSeed({
      accounts: accounts.map((account) => ({
        id: account,
        name: account,
        projects: [{ id: 'PRJ-1', campaigns: [{ id: 'CMP-1' }] }, { id: 'PRJ-2', campaigns: [{ id: 'CMP-2' }] }],
        subSources: { social: ['wp'] },
        whatsappNumbers: [{ phoneNumberId: id, projectID: 'PRJ-1', campaignID: 'CMP-1' }],
      })),
      apiKeys: [],
    });

  it('connects its numbers, and applied again never connects back one that was removed', async () => {
    const id = phoneNumberId();
    const seed = seedOf(id);
    await applySeed(service.repository, seed);
    expect(await stored(id)).toMatchObject({ accountId: 'acc-wa', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    await applySeed(service.repository, seed);
    expect((await listed()).filter((n) => n.phone_number_id === id)).toHaveLength(1);
    await cli('remove-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', id);
    await applySeed(service.repository, seed);
    expect(await stored(id)).toBeUndefined();
    // Connecting it by hand does.
    expect((await cli('add-whatsapp-number', '--account', 'acc-wa', '--phone-number-id', id, '--project', 'PRJ-2', '--campaign', 'CMP-2')).code).toBe(0);
    await applySeed(service.repository, seed);
    // A seed moves the account's number to its project and campaign.
    expect(await stored(id)).toMatchObject({ projectId: 'PRJ-1', campaignId: 'CMP-1' });
  });

  it('refuses one number in two accounts of a file, and a number of the wrong shape, before writing anything', () => {
    expect(() => seedOf('106500000000001', ['acc-wa', 'acc-wa-other'])).toThrow(/appears more than once \(a number belongs to one account\)/);
    expect(() => seedOf('+91 80 4718 1234')).toThrow(/whatsappNumbers\[0\]\.phoneNumberId must be Meta's phone number id/);
  });
});
