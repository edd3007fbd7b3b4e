/**
 * A source gone quiet, through `npm start` (CONTRACT.md section 16), as a tester runs it: small settings
 * from the environment, a channel's leads, its `Source Silent` and then `Source Resumed` at the local
 * events webhook, and `admin sources` before and after. The silence is real (a tenth of a minute), and
 * every step waits on what it expects, never a fixed time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { runAdmin } from '../../scripts/admin.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { adminClient } from '../support/admin-client.ts';
import { killGroup, waitFor } from '../support/processes.ts';

const KEY = 'quiet-source-key-not-secret';
const ACCOUNT = 'acc-quiet';
const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-quiet-'));
const seedFile = path.join(dir, 'seed.json');
writeFileSync(
  seedFile,
  JSON.stringify({
    accounts: [{ id: ACCOUNT, name: 'Quiet Realty', projects: [{ id: 'PRJ-1', name: 'Skyline', campaigns: [{ id: 'CMP-1', name: 'Launch' }] }] }],
    apiKeys: [{ key: KEY, accountId: ACCOUNT }],
  }),
);
const silence = { SILENCE_MIN_LEADS: '3', SILENCE_MIN_MINUTES: '0.1', SILENCE_QUIET_HOURS: 'none' };

describe('npm start with SILENCE_* settings and LEAD_EVENTS_WEBHOOK_URL', () => {
  let child: ChildProcess;
  let output = '';
  let baseUrl: string;
  let dynamodbPort: number;
  let receiver: Server;
  const received: Array<{ 'detail-type': string; detail: any }> = [];

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => {
        received.push(JSON.parse(text));
        response.writeHead(200).end();
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
      LEAD_EVENTS_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/crm/events`,
      SILENCE_CHECK_SECONDS: '1',
      ...silence,
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

  let sent = 0;
  const post = async () => {
    const response = await fetch(`${baseUrl}/api/portala-lead-create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ name: 'Asha Verma', mobile_number: `98765${String((sent += 1)).padStart(5, '0')}`, projectID: 'PRJ-1', campaignID: 'CMP-1', notes: 'Wants a 2 BHK' }),
    });
    const body = (await response.json()) as { data: { id: string; created_at: string } };
    expect([response.status, body]).toEqual([200, expect.objectContaining({ data: expect.any(Object) })]);
    return body.data;
  };

  const sources = async () => {
    let stdout = '';
    const code = await runAdmin(['sources', '--account', ACCOUNT, '--json'], {
      // Nothing of the watch's settings in the CLI's environment: they come from the service (CONTRACT.md section 19).
      env: { DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamodbPort}` },
      stdout: (text) => void (stdout += text),
      stderr: () => undefined,
    });
    expect(code).toBe(0);
    return JSON.parse(stdout) as Array<Record<string, unknown>>;
  };

  /** The admin API's `GET .../sources`, signed as the CRM signs it. */
  const apiSources = async () => {
    const answer = await adminClient(baseUrl)({ method: 'GET', path: `/admin/v1/accounts/${ACCOUNT}/sources` });
    expect(answer.status).toBe(200);
    return answer.body as Array<Record<string, unknown>>;
  };

  const ofType = (type: string) => received.filter((event) => event['detail-type'] === type);

  it('says in its banner how often it checks, with which settings', () => {
    expect(output).toContain('Quiet sources:       checked every 1 s (SILENCE_CHECK_SECONDS): Source Silent past max(0.1 min, 4 median gaps) outside quiet hours none, for channels of 3+ leads in 14 days');
  });

  it("sends one Source Silent when a watched channel's leads stop, and one Source Resumed with its next lead", async () => {
    await post();
    await post();
    const last = await post();
    // Counted from the stream a moment after they are stored (a lead's time, then the channel's last lead):
    // asked again until the last one is in.
    let before: Array<Record<string, unknown>> = [];
    const counted = () => before[0]?.leads_14d === 3 && before[0]?.last_lead_at === last.created_at;
    for (const deadline = Date.now() + 20_000; !counted() && Date.now() < deadline; ) before = await sources();
    expect(before).toEqual([{ source: 'portala', sub_source: null, connection_id: null, leads_14d: 3, last_lead_at: last.created_at, usual_gap_minutes: expect.any(Number), state: expect.stringMatching(/^(watched|silent)$/) }]);

    await waitFor(() => ofType('Source Silent').length > 0, 'Source Silent at the webhook', 30_000);
    const [silent] = ofType('Source Silent');
    expect(silent).toMatchObject({ source: 'crm.lead-intake', detail: { account_id: ACCOUNT, channel: { source: 'portala', sub_source: null }, last_lead_at: last.created_at, leads_14d: 3 } });
    expect(silent!.detail.silent_minutes).toEqual(expect.any(Number));
    expect((await sources())[0]).toMatchObject({ leads_14d: 3, state: 'silent' });
    // The CLI, with none of the service's non-default settings in its shell, answers as the admin API.
    expect(await sources()).toEqual(await apiSources());

    const next = await post();
    await waitFor(() => ofType('Source Resumed').length > 0, 'Source Resumed at the webhook', 20_000);
    expect(ofType('Source Resumed')).toEqual([
      expect.objectContaining({ source: 'crm.lead-intake', detail: { account_id: ACCOUNT, channel: { source: 'portala', sub_source: null }, silent_since: last.created_at, resumed_at: next.created_at } }),
    ]);
    // Source Resumed is sent once the channel's last lead is the new one: listed at once.
    expect((await sources())[0]).toMatchObject({ leads_14d: 4, last_lead_at: next.created_at });
    // Once per silence: a later Source Silent (the next lead's own silence, six seconds on) names a later last lead.
    const silences = ofType('Source Silent').map((event) => event.detail.last_lead_at);
    expect(new Set(silences).size).toBe(silences.length);
    expect(silences[0]).toBe(last.created_at);
  }, 90_000);
});
