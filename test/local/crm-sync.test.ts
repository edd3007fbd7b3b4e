/**
 * CRM sync through `npm start`, as a CRM developer runs it: configuration in through the signed admin
 * API, a lead sent at once to the new campaign, the lead out to a webhook receiver that fails first,
 * and a retired campaign refusing the next lead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { runAdmin } from '../../scripts/admin.ts';
import { DEFAULT_ADMIN_CREDENTIALS } from '../../scripts/local/admin-auth.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { adminClient } from '../support/admin-client.ts';
import { killGroup, waitFor } from '../support/processes.ts';

const KEY = 'crm-sync-key-not-secret';
const ACCOUNT = 'acc-crm';
const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-crm-'));
const seedFile = path.join(dir, 'seed.json');
writeFileSync(seedFile, JSON.stringify({ accounts: [{ id: ACCOUNT, name: 'CRM Realty' }], apiKeys: [{ key: KEY, accountId: ACCOUNT }] }));

interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: any;
  readonly status: number;
}

describe('npm start with the admin API and LEAD_EVENTS_WEBHOOK_URL', () => {
  let child: ChildProcess;
  let output = '';
  let baseUrl: string;
  let dynamodbPort: number;
  let receiver: Server;
  let delivered: Record<string, unknown> | undefined;
  const received: Received[] = [];

  beforeAll(async () => {
    // The CRM's receiving side: down for the first delivery (503), then up.
    receiver = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => {
        const status = received.length === 0 ? 503 : 200;
        received.push({ headers: request.headers, body: JSON.parse(text), status });
        response.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      DYNAMODB_PORT: String((dynamodbPort = await freePort())),
      LEAD_INTAKE_DATA_DIR: ':memory:',
      LEAD_INTAKE_SEED: seedFile,
      LEAD_EVENTS_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/crm/leads`,
      LEAD_EVENTS_WEBHOOK_AUTHORIZATION: 'Bearer crm-webhook-token',
      LEAD_EVENTS_RETRY_DELAY_MS: '100',
    };
    for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS', 'AWS_REGION', 'LEAD_INTAKE_ADMIN_ACCESS_KEY_ID', 'LEAD_INTAKE_ADMIN_SECRET_ACCESS_KEY']) delete env[name];
    child = spawn('npm', ['start'], { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    await waitFor(() => output.includes('Ctrl-C stops'), 'the banner', 60_000);
  }, 90_000);

  afterAll(async () => {
    killGroup(child?.pid);
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const admin = () => adminClient(baseUrl);
  const post = (body: Record<string, string>) =>
    fetch(`${baseUrl}/api/portala-lead-create`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify(body) });

  it('prints the admin API and its local credentials, and where the events go, never the webhook authorization', () => {
    expect(output).toContain(`Admin API:           ${baseUrl}/admin/v1 (AWS SigV4, service execute-api, region any)`);
    expect(output).toContain(`access key id:     ${DEFAULT_ADMIN_CREDENTIALS.accessKeyId}`);
    expect(output).toContain(`secret access key: ${DEFAULT_ADMIN_CREDENTIALS.secretAccessKey}`);
    expect(output).toContain('Lead events:         each Lead Created and Lead Erased event is POSTed to http://127.0.0.1:');
    expect(output).not.toContain('crm-webhook-token');
  });

  it('takes a lead for a campaign created through the API a moment before, and delivers it to the webhook after a failed attempt', async () => {
    const send = admin();
    // A first change warms the database emulator's JVM up (its first transaction loads classes for a while).
    expect((await send({ method: 'PUT', path: `/admin/v1/accounts/${ACCOUNT}/projects/PRJ-WARM`, body: { name: 'Warm-up' } })).status).toBe(200);
    expect((await send({ method: 'PUT', path: `/admin/v1/accounts/${ACCOUNT}/projects/PRJ-NEW`, body: { name: 'Lakeside' } })).status).toBe(200);
    expect((await send({ method: 'PUT', path: `/admin/v1/accounts/${ACCOUNT}/projects/PRJ-NEW/campaigns/CMP-NEW`, body: { name: 'Monsoon offer' } })).status).toBe(200);
    const answer = await post({ name: 'Asha Verma', mobile_number: '9876543210', projectID: 'PRJ-NEW', campaignID: 'CMP-NEW', notes: 'Call after 6' });
    const lead = ((await answer.json()) as { data: Record<string, unknown> }).data;
    expect(answer.status).toBe(200);

    await waitFor(() => received.some((r) => r.status === 200), 'the webhook delivery', 20_000);
    delivered = lead;
    expect(received.map((r) => r.status)).toEqual([503, 200]);
    for (const { headers, body } of received) {
      expect(headers.authorization).toBe('Bearer crm-webhook-token');
      expect(body).toEqual({
        id: expect.any(String),
        source: 'crm.lead-intake',
        'detail-type': 'Lead Created',
        time: expect.stringMatching(/Z$/),
        detail: { account_id: ACCOUNT, lead },
      });
    }
    // The receiver has its 200 before npm start hears it and logs the delivery: wait for the line itself.
    await waitFor(() => output.includes(`lead events: Lead Created ${lead.id} delivered`), 'the delivery logged', 10_000);
  }, 30_000);

  it('refuses a lead for the campaign once it is retired through the API, and keeps the lead it had', async () => {
    expect((await admin()({ method: 'DELETE', path: `/admin/v1/accounts/${ACCOUNT}/projects/PRJ-NEW/campaigns/CMP-NEW` })).status).toBe(204);
    const refused = await post({ name: 'Ravi Kumar', mobile_number: '9876500001', projectID: 'PRJ-NEW', campaignID: 'CMP-NEW', notes: 'n' });
    expect([refused.status, await refused.json()]).toEqual([422, { status: false, message: 'Campaign not found' }]);
    const { projects } = (await admin()({ method: 'GET', path: `/admin/v1/accounts/${ACCOUNT}` })).body;
    expect(projects.find((p: { id: string }) => p.id === 'PRJ-NEW')).toEqual({ id: 'PRJ-NEW', name: 'Lakeside', campaigns: [] });

    // The lead taken before the retirement is still stored, as it was answered, and is the only one.
    expect(delivered).toBeDefined();
    let stdout = '';
    const code = await runAdmin(['leads', '--account', ACCOUNT, '--project', 'PRJ-NEW', '--json'], {
      env: { DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamodbPort}` },
      stdout: (text) => void (stdout += text),
      stderr: () => undefined,
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([delivered]);
  });

  it('answers an unsigned admin request 403 Forbidden', async () => {
    const response = await fetch(`${baseUrl}/admin/v1/accounts/${ACCOUNT}`);
    expect([response.status, await response.json()]).toEqual([403, { message: 'Forbidden' }]);
  });
});
