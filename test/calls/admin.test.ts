/**
 * Call numbers and calls keys through the admin CLI, the admin API and the seed (CONTRACT.md sections
 * 7, 9, 13 and 14): connecting, changing and removing numbers, each seen by the webhook at once; the
 * calls scope of a key; `admin rejections` naming a refused call; a seed never connecting back a
 * number that was removed.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { applySeed, parseSeed } from '../../scripts/local/seed.ts';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { adminCall } from '../support/admin-handler.ts';
import { uniqueMobile } from '../support/service.ts';
import { callId, callTestService, projectNumber, type CallTestService } from '../support/call-service.ts';

let calls: CallTestService;
let env: NodeJS.ProcessEnv;
let handler: ReturnType<typeof adminHandler>;
let key: string;
const base = '/admin/v1/accounts/acc-adm';

beforeAll(async () => {
  // TTL 0: the webhook sees each change at once, so each test sees what the store holds.
  calls = await callTestService({ configCacheTtlSeconds: 0 });
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: calls.tables.config, LEADS_TABLE_NAME: calls.tables.leads };
  await calls.seedAccount({ id: 'acc-adm', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  handler = adminHandler(adminRuntime(calls.repository, () => undefined));
  key = await calls.callsKey('acc-adm');
});

const cli = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};
const api = (method: string, path: string, body?: unknown) => adminCall(handler, method, path, body);
const call = (number: string, id = callId()) => calls.deliver({ queryKey: key, json: { call_id: id, caller_number: uniqueMobile(), called_number: number } });
const leadOf = async (id: string) => (await calls.leadsOf('acc-adm', ['PRJ-1', 'PRJ-2'])).find((lead) => lead.call_id === id);

describe('admin add-call-number, call-numbers and remove-call-number', () => {
  it('connects a number: its calls become leads of its project and campaign', async () => {
    const number = projectNumber();
    const added = await cli('add-call-number', '--account', 'acc-adm', '--number', `+91 ${number}`, '--project', 'PRJ-1', '--campaign', 'CMP-1');
    expect(added).toMatchObject({ code: 0, stdout: `Call number ${number} is connected to account acc-adm (project PRJ-1, campaign CMP-1).\n` });
    expect(added.stderr).toContain('/api/call-lead-webhook/');
    const id = callId();
    await call(number, id);
    expect(await leadOf(id)).toMatchObject({ projectID: 'PRJ-1', campaignID: 'CMP-1', call_number: number });
  });

  it('connecting again changes its project and campaign; --json prints the number', async () => {
    const number = projectNumber();
    await cli('add-call-number', '--account', 'acc-adm', '--number', number, '--project', 'PRJ-1', '--campaign', 'CMP-1');
    const again = await cli('add-call-number', '--account', 'acc-adm', '--number', `0${number}`, '--project', 'PRJ-2', '--campaign', 'CMP-2', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ number, project_id: 'PRJ-2', campaign_id: 'CMP-2', connected_at: expect.any(String) });
    const id = callId();
    await call(number, id);
    expect(await leadOf(id)).toMatchObject({ projectID: 'PRJ-2', campaignID: 'CMP-2' });
  });

  it('lists the numbers, with --json the contract’s fields', async () => {
    const number = projectNumber();
    await cli('add-call-number', '--account', 'acc-adm', '--number', number, '--project', 'PRJ-1', '--campaign', 'CMP-1');
    const listed = await cli('call-numbers', '--account', 'acc-adm', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual({ number, project_id: 'PRJ-1', campaign_id: 'CMP-1', connected_at: expect.any(String) });
    expect((await cli('call-numbers', '--account', 'acc-adm')).stdout).toContain(number);
  });

  it('removes a number: its calls are then call_number_not_connected records, which admin rejections names by provider and call id', async () => {
    const number = projectNumber();
    await cli('add-call-number', '--account', 'acc-adm', '--number', number, '--project', 'PRJ-1', '--campaign', 'CMP-1');
    expect(await cli('remove-call-number', '--account', 'acc-adm', '--number', number)).toMatchObject({ code: 0 });
    const id = callId();
    expect(await call(number, id)).toMatchObject({ status: 200, body: { message: 'Call received' } });
    expect(await leadOf(id)).toBeUndefined();
    const rejections = await cli('rejections', '--account', 'acc-adm', '--reason', 'call_number_not_connected');
    expect(rejections.stdout).toContain(`call generic ${id}`);
    expect(await cli('remove-call-number', '--account', 'acc-adm', '--number', number)).toMatchObject({ code: 1 });
  });

  it.each([
    ['a number of fewer than 10 digits', ['add-call-number', '--account', 'acc-adm', '--number', '4718123', '--project', 'PRJ-1', '--campaign', 'CMP-1'], 2],
    ['no number', ['add-call-number', '--account', 'acc-adm', '--project', 'PRJ-1', '--campaign', 'CMP-1'], 2],
    ['an unknown project', ['add-call-number', '--account', 'acc-adm', '--number', '8049990001', '--project', 'PRJ-9', '--campaign', 'CMP-1'], 1],
    ['a campaign of another project', ['add-call-number', '--account', 'acc-adm', '--number', '8049990001', '--project', 'PRJ-1', '--campaign', 'CMP-2'], 1],
    ['an unknown account', ['call-numbers', '--account', 'acc-none'], 1],
    ['a number not connected', ['remove-call-number', '--account', 'acc-adm', '--number', '8049990002'], 1],
  ])('exits %s with its code', async (_case, argv, code) => {
    expect((await cli(...argv)).code).toBe(code);
  });
});

describe('the calls scope of a key', () => {
  it('create-key --endpoints calls makes a key the webhook takes, and no lead endpoint does', async () => {
    const created = await cli('create-key', '--account', 'acc-adm', '--endpoints', 'calls', '--json');
    expect(created.code).toBe(0);
    const issued = JSON.parse(created.stdout);
    expect(issued).toMatchObject({ endpoints: ['calls'], origins: null });
    const number = projectNumber();
    await cli('add-call-number', '--account', 'acc-adm', '--number', number, '--project', 'PRJ-1', '--campaign', 'CMP-1');
    expect(await calls.deliver({ queryKey: issued.key, json: { call_id: callId(), caller_number: uniqueMobile(), called_number: number } })).toMatchObject({ status: 200 });
  });

  it.each([
    ['calls with another endpoint', ['--endpoints', 'calls,website']],
    ['calls with origins', ['--endpoints', 'calls', '--origins', 'https://shop.example']],
  ])('create-key refuses %s: exit 2, and the admin API 400', async (_case, options) => {
    const created = await cli('create-key', '--account', 'acc-adm', ...options);
    expect(created.code).toBe(2);
    expect(created.stderr).toContain('calls');
    const body = options.includes('--origins') ? { endpoints: ['calls'], origins: ['https://shop.example'] } : { endpoints: ['calls', 'website'] };
    expect((await api('POST', `${base}/keys`, body)).status).toBe(400);
  });
});

describe('the admin API’s call numbers', () => {
  it('PUT connects a new number (201), connects it again elsewhere (200); GET lists it; DELETE removes it (204), then 404', async () => {
    const number = projectNumber();
    const created = await api('PUT', `${base}/call-numbers/${encodeURIComponent(`+91${number}`)}`, { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(created).toMatchObject({ status: 201, body: { number, project_id: 'PRJ-1', campaign_id: 'CMP-1', connected_at: expect.any(String) } });
    expect(created.headers['x-request-id']).toEqual(expect.any(String));
    const changed = await api('PUT', `${base}/call-numbers/${number}`, { projectId: 'PRJ-2', campaignId: 'CMP-2' });
    expect(changed).toMatchObject({ status: 200, body: { number, project_id: 'PRJ-2', campaign_id: 'CMP-2', connected_at: created.body.connected_at } });
    const id = callId();
    await call(number, id);
    expect(await leadOf(id)).toMatchObject({ projectID: 'PRJ-2' });
    expect((await api('GET', `${base}/call-numbers`)).body).toContainEqual(changed.body);
    expect(await api('DELETE', `${base}/call-numbers/${number}`)).toMatchObject({ status: 204 });
    expect(await api('DELETE', `${base}/call-numbers/${number}`)).toMatchObject({ status: 404, body: { status: false, message: 'Call number not found' } });
    expect((await api('GET', `${base}/call-numbers`)).body.map((n: { number: string }) => n.number)).not.toContain(number);
  });

  it.each([
    ['an unknown project', { projectId: 'PRJ-9', campaignId: 'CMP-1' }, 'Project not found'],
    ['a campaign of another project', { projectId: 'PRJ-1', campaignId: 'CMP-2' }, 'Campaign not found'],
  ])('answers %s 404, connecting nothing', async (_case, body, message) => {
    expect(await api('PUT', `${base}/call-numbers/8049990010`, body)).toMatchObject({ status: 404, body: { status: false, message } });
    expect((await api('GET', `${base}/call-numbers`)).body.map((n: { number: string }) => n.number)).not.toContain('8049990010');
  });

  it('answers 400 naming each problem for a number of fewer than 10 digits, a missing campaign and an unknown field', async () => {
    const answer = await api('PUT', `${base}/call-numbers/4718123`, { projectId: 'PRJ-1', colour: 'red' });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.errors).sort()).toEqual(['campaignId', 'colour', 'number']);
  });

  it('answers an unknown account 404 Account not found', async () => {
    expect(await api('GET', '/admin/v1/accounts/acc-none/call-numbers')).toMatchObject({ status: 404, body: { message: 'Account not found' } });
    expect(await api('PUT', '/admin/v1/accounts/acc-none/call-numbers/8049990011', { projectId: 'PRJ-1', campaignId: 'CMP-1' })).toMatchObject({ status: 404, body: { message: 'Account not found' } });
  });
});

describe('the seed', () => {
  it('connects its numbers, and applied again never connects back one that was removed', async () => {
    const number = projectNumber();
    const seed = parseSeed({
      accounts: [{ id: 'acc-adm', name: 'Admin', projects: [{ id: 'PRJ-1', campaigns: [{ id: 'CMP-1' }] }, { id: 'PRJ-2', campaigns: [{ id: 'CMP-2' }] }], callNumbers: [{ number, projectID: 'PRJ-1', campaignID: 'CMP-1' }] }],
      apiKeys: [],
    });
    await applySeed(calls.repository, seed);
    const id = callId();
    await call(number, id);
    expect(await leadOf(id)).toMatchObject({ projectID: 'PRJ-1' });
    await cli('remove-call-number', '--account', 'acc-adm', '--number', number);
    await applySeed(calls.repository, seed);
    expect(JSON.parse((await cli('call-numbers', '--account', 'acc-adm', '--json')).stdout).map((n: { number: string }) => n.number)).not.toContain(number);
    const after = callId();
    await call(number, after);
    expect(await leadOf(after)).toBeUndefined();
  });
});
