/**
 * Meta Lead Ads through `npm start` as a tester runs it (CONTRACT.md section 8): a child process with
 * its own in-memory DynamoDB Local, a seed with connected pages, and the Graph API faked on a local
 * port. A signed notification becomes leads in `admin leads`; what cannot be a lead shows in
 * `admin rejections`, within seconds.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { signatureOf } from '../../shared/meta/signature.ts';
import { fakeGraph, fieldData, leadgenNotification, type FakeGraph } from '../support/fake-graph.ts';
import { killGroup, waitFor } from '../support/processes.ts';

const APP_SECRET = 'e2e-app-secret-7d1c';
const VERIFY_TOKEN = 'e2e-verify-token-3b9a';
const TOKENS = { east: 'EAAB-e2e-east-token', west: 'EAAB-e2e-west-token' };
const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-meta-start-'));
const seedFile = path.join(dir, 'seed.json');
const account = (id: string, pageId: string, token: string, social: string[]) => ({
  id,
  name: `Realty ${id}`,
  duplicateHandling: 'ignore',
  projects: [{ id: 'PRJ-M', name: 'Harbour', campaigns: [{ id: 'CMP-M', name: 'Launch' }] }],
  subSources: { social },
  metaPages: [{ pageId, accessToken: token, forms: [{ formId: '4001', projectID: 'PRJ-M', campaignID: 'CMP-M' }] }],
});
writeFileSync(
  seedFile,
  JSON.stringify({ accounts: [account('acc-east', '101', TOKENS.east, ['fb', 'ig']), account('acc-west', '202', TOKENS.west, ['fb'])], apiKeys: [] }),
);

let graph: FakeGraph;
let child: ChildProcess;
let stdout = '';
let stderr = '';
let baseUrl: string;
let dynamoEndpoint: string;
let repository: DynamoDbRepository;

const adminEnv = () => {
  const env: NodeJS.ProcessEnv = { ...process.env, DYNAMODB_ENDPOINT: dynamoEndpoint };
  for (const name of ['CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME']) delete env[name];
  return env;
};
const admin = (...argv: string[]) => execFileSync('npm', ['run', '--silent', 'admin', '--', ...argv], { cwd: projectRoot, env: adminEnv(), encoding: 'utf8' });

const notify = (body: string, signature: string | undefined = signatureOf(body, APP_SECRET)) =>
  fetch(`${baseUrl}/api/meta-leadgen-webhook`, { method: 'POST', headers: { 'content-type': 'application/json', ...(signature && { 'x-hub-signature-256': signature }) }, body });

const leadsOf = (accountId: string) => repository.leadArchive.listLeads(accountId, ['PRJ-M']);
const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> => {
  let value = await read();
  const deadline = Date.now() + timeoutMs;
  while (!done(value)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
};

beforeAll(async () => {
  graph = await fakeGraph(APP_SECRET);
  const port = await freePort();
  const dynamoPort = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  dynamoEndpoint = `http://127.0.0.1:${dynamoPort}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DYNAMODB_PORT: String(dynamoPort),
    LEAD_INTAKE_DATA_DIR: ':memory:',
    LEAD_INTAKE_SEED: seedFile,
    META_APP_SECRET: APP_SECRET,
    META_VERIFY_TOKEN: VERIFY_TOKEN,
    META_GRAPH_API_URL: graph.url,
    // The local default retries a read for about 30 s; a test waits a second.
    META_RETRY_BASE_SECONDS: '0.2',
    META_MAX_RECEIVE_COUNT: '3',
  };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS']) delete env[name];
  child = spawn('npm', ['start'], { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await Promise.race([waitFor(() => stdout.includes('Ctrl-C stops'), 'the banner'), exited.then((code) => Promise.reject(new Error(`npm start exited with ${code}: ${stderr}`)))]);
  repository = new DynamoDbRepository(createDocumentClient({ endpoint: dynamoEndpoint }), { config: 'lead-intake-Config', leads: 'lead-intake-Leads' });
}, 60_000);

afterAll(async () => {
  killGroup(child?.pid);
  await graph?.close();
});

describe('Meta Lead Ads through npm start', () => {
  it('prints the webhook URL in its banner', () => {
    expect(stdout).toContain(`Meta webhook:        ${baseUrl}/api/meta-leadgen-webhook`);
  });

  it("answers Meta's subscription check with the challenge, and refuses a wrong verify token", async () => {
    const ok = await fetch(`${baseUrl}/api/meta-leadgen-webhook?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=8675309`);
    expect([ok.status, await ok.text(), ok.headers.get('content-type')]).toEqual([200, '8675309', 'text/plain; charset=utf-8']);
    const refused = await fetch(`${baseUrl}/api/meta-leadgen-webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=8675309`);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('turns a signed notification from pages of two accounts into leads in `admin leads`', async () => {
    graph.serve('900001', TOKENS.east, { platform: 'fb', form_id: '4001', campaign_name: 'Monsoon', field_data: fieldData({ full_name: 'Asha Verma', phone_number: '+91 98765 11111', email: 'asha@example.com' }) });
    graph.serve('900002', TOKENS.east, { platform: 'ig', form_id: '4001', field_data: fieldData({ first_name: 'Kabir', last_name: 'Shah', phone_number: '9876522222' }) });
    graph.serve('900003', TOKENS.west, { platform: 'fb', form_id: '4001', field_data: fieldData({ full_name: 'Meera Iyer', phone_number: '9876533333' }) });
    const body = JSON.stringify(
      leadgenNotification([
        { pageId: '101', leadgenId: '900001', formId: '4001' },
        { pageId: '101', leadgenId: '900002', formId: '4001' },
        { pageId: '202', leadgenId: '900003', formId: '4001' },
      ]),
    );
    const answer = await notify(body);
    expect([answer.status, await answer.json()]).toEqual([200, { status: true, message: 'Notification received' }]);

    await eventually(() => leadsOf('acc-east'), (leads) => leads.length === 2, 'the east leads');
    await eventually(() => leadsOf('acc-west'), (leads) => leads.length === 1, 'the west lead');
    // Changes are worked on concurrently: the order of the two leads is the order they were stored in.
    const east = JSON.parse(admin('leads', '--account', 'acc-east', '--json')) as { meta_leadgen_id: string }[];
    expect(east.sort((a, b) => a.meta_leadgen_id.localeCompare(b.meta_leadgen_id))).toEqual([
      expect.objectContaining({ name: 'Asha Verma', mobile_number: '9876511111', source: 'social', sub_source: 'fb', social_campaign: 'Monsoon', meta_leadgen_id: '900001', meta_form_id: '4001' }),
      expect.objectContaining({ name: 'Kabir Shah', mobile_number: '9876522222', sub_source: 'ig', meta_leadgen_id: '900002' }),
    ]);
    expect(JSON.parse(admin('leads', '--account', 'acc-west', '--json'))).toEqual([expect.objectContaining({ name: 'Meera Iyer', meta_leadgen_id: '900003' })]);

    // Meta delivers it again: still one lead each.
    expect((await notify(body)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await leadsOf('acc-east')).toHaveLength(2);
  });

  it('refuses a wrong signature with 401: nothing read, nothing stored', async () => {
    graph.serve('900010', TOKENS.west, { platform: 'fb', form_id: '4001', field_data: fieldData({ full_name: 'X', phone_number: '9876544444' }) });
    const body = JSON.stringify(leadgenNotification([{ pageId: '202', leadgenId: '900010', formId: '4001' }]));
    const answer = await notify(body, signatureOf(body, 'guessed-secret'));
    expect([answer.status, await answer.json()]).toEqual([401, { status: false, message: 'Invalid signature' }]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(graph.readsOf('900010')).toHaveLength(0);
    expect(await leadsOf('acc-west')).toHaveLength(1);
  });

  it('shows what could not become a lead in `admin rejections`: ig not configured, an expired token, a Graph that keeps failing', async () => {
    graph.serve('900020', TOKENS.west, { platform: 'ig', form_id: '4001', field_data: fieldData({ full_name: 'Ig Lead', phone_number: '9876555555' }) });
    graph.serve('900021', TOKENS.west, { platform: 'fb', form_id: '4001', field_data: fieldData({ full_name: 'Late', phone_number: '9876566666' }) });
    graph.failAlways('900021', 'expired_token');
    graph.serve('900022', TOKENS.west, { platform: 'fb', form_id: '4001', field_data: fieldData({ full_name: 'Down', phone_number: '9876577777' }) });
    graph.failAlways('900022', 'server_error');
    const body = JSON.stringify(leadgenNotification(['900020', '900021', '900022'].map((leadgenId) => ({ pageId: '202', leadgenId, formId: '4001' }))));
    expect((await notify(body)).status).toBe(200);

    const rejections = await eventually(
      async () => JSON.parse(admin('rejections', '--account', 'acc-west', '--json')) as { meta_leadgen_id: string; reason: string; endpoint: string }[],
      (list) => list.length >= 3,
      'three rejection records',
    );
    const byLead = Object.fromEntries(rejections.map((r) => [r.meta_leadgen_id, [r.endpoint, r.reason]]));
    expect(byLead).toEqual({ '900020': ['meta', 'sub_source_not_found'], '900021': ['meta', 'meta_token_refused'], '900022': ['meta', 'meta_graph_read_failed'] });
    expect(graph.readsOf('900021')).toHaveLength(1);
    expect(graph.readsOf('900022').length).toBeGreaterThanOrEqual(3);
  });

  it('lists the connected pages without their tokens', () => {
    const listed = admin('meta-pages', '--account', 'acc-east');
    expect(listed).toMatch(/101\s+stored encrypted/);
    expect(listed).not.toContain(TOKENS.east);
  });

  it('never logs a page token, the app secret or the verify token', () => {
    const logLines = stdout.split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.filter((line) => line.includes('"endpoint":"meta"')).length).toBeGreaterThanOrEqual(5);
    for (const secret of [...Object.values(TOKENS), APP_SECRET, VERIFY_TOKEN]) expect(stdout + stderr).not.toContain(secret);
  });
});
