/**
 * The README's local Meta example, as a tester runs it from a fresh clone: `npm start` with the demo
 * seed and nothing about Meta set. The demo seed connects page 108000000000001 and maps its form to
 * PRJ-1 / CMP-1, and `npm start` serves its local Graph API stand-in (shared/meta/graph-stand-in.ts),
 * so the signed `events/meta-leadgen.json` becomes a lead in `admin leads`, not a log line.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { standInLead, startGraphStandIn } from '../../shared/meta/graph-stand-in.ts';
import { LOCAL_META_APP_SECRET } from '../../shared/meta/local.ts';
import { GraphReadError } from '../../shared/meta/errors.ts';
import { graphLeadReader } from '../../shared/meta/graph.ts';
import { signatureOf } from '../../shared/meta/signature.ts';
import { killGroup, waitFor } from '../support/processes.ts';

const event = JSON.parse(readFileSync(path.join(projectRoot, 'events/meta-leadgen.json'), 'utf8')) as { body: string };

let child: ChildProcess;
let stdout = '';
let stderr = '';
let baseUrl: string;
let dynamoEndpoint: string;

const admin = (...argv: string[]) => {
  const env: NodeJS.ProcessEnv = { ...process.env, DYNAMODB_ENDPOINT: dynamoEndpoint };
  for (const name of ['CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME']) delete env[name];
  return execFileSync('npm', ['run', '--silent', 'admin', '--', ...argv], { cwd: projectRoot, env, encoding: 'utf8' });
};

beforeAll(async () => {
  const port = await freePort();
  const dynamoPort = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  dynamoEndpoint = `http://127.0.0.1:${dynamoPort}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DYNAMODB_PORT: String(dynamoPort), LEAD_INTAKE_DATA_DIR: ':memory:' };
  // A fresh clone's shell: no seed named, nothing about Meta set.
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS', 'LEAD_INTAKE_SEED', 'META_GRAPH_API_URL', 'META_APP_SECRET', 'META_VERIFY_TOKEN']) {
    delete env[name];
  }
  child = spawn('npm', ['start'], { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await Promise.race([waitFor(() => stdout.includes('Ctrl-C stops'), 'the banner', 90_000), exited.then((code) => Promise.reject(new Error(`npm start exited with ${code}: ${stderr}`)))]);
}, 120_000);

afterAll(() => {
  killGroup(child?.pid);
});

describe("the README's local Meta example with the demo seed", () => {
  it('says in the banner that leads are read from the local Graph API stand-in, for the seed page', () => {
    expect(stdout).toMatch(/Meta webhook: +http:\/\/127\.0\.0\.1:\d+\/api\/meta-leadgen-webhook \(GET verification, signed POST; 1 page\(s\) in the seed; leads read from the local Graph API stand-in at http:\/\/127\.0\.0\.1:\d+\/v26\.0\/, as META_GRAPH_API_URL is unset\)/);
  });

  it('stores the signed example notification as a social lead of acc-demo, listed by admin leads', async () => {
    const answer = await fetch(`${baseUrl}/api/meta-leadgen-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signatureOf(event.body, LOCAL_META_APP_SECRET) },
      body: event.body,
    });
    expect([answer.status, await answer.json()]).toEqual([200, { status: true, message: 'Notification received' }]);
    type Listed = { meta_leadgen_id?: string };
    let leads: Listed[] = [];
    await waitFor(() => {
      leads = (JSON.parse(admin('leads', '--account', 'acc-demo', '--json')) as Listed[]).filter((lead) => lead.meta_leadgen_id === '1200000000000001');
      return leads.length > 0;
    }, 'the Meta lead in admin leads', 30_000);
    expect(leads).toEqual([
      expect.objectContaining({
        source: 'social',
        sub_source: 'fb',
        platform: 'fb',
        projectID: 'PRJ-1',
        campaignID: 'CMP-1',
        mobile_number: '9000000001',
        meta_leadgen_id: '1200000000000001',
        meta_form_id: '2200000000000001',
        social_campaign: 'Demo lead ads campaign',
        is_repeated: false,
      }),
    ]);
    expect(admin('rejections', '--account', 'acc-demo', '--json')).not.toContain('1200000000000001');
  }, 60_000);
});

describe('the banner of npm start on another PORT', () => {
  it('points the landing page and the API documentation at the running server', () => {
    expect(stdout).toContain(`Landing page:        cd examples/landing-page && python3 -m http.server 8080 --bind 127.0.0.1, then open http://127.0.0.1:8080/?api_base=${baseUrl}\n`);
    expect(stdout).toContain(`API documentation:   ${baseUrl}/docs\n`);
  });
});

describe('the local Graph API stand-in', () => {
  it("serves a lead only to a request with the app secret's appsecret_proof, as Graph does", async () => {
    const standIn = await startGraphStandIn(() => 'stand-in-secret');
    try {
      const read = (secret: string) => graphLeadReader({ baseUrl: standIn.url, appSecret: async () => secret, attempts: 1 }).readLead('1200000000000042', 'any-page-token');
      expect(await read('stand-in-secret')).toEqual({ ...standInLead('1200000000000042'), created_time: expect.any(String) });
      await expect(read('another-secret')).rejects.toBeInstanceOf(GraphReadError);
    } finally {
      await standIn.close();
    }
  });

  it('makes each leadgen id a different person with a valid Indian mobile number', () => {
    const phones = ['1200000000000001', '1200000000000002', '987654321012345678'].map((id) => standInLead(id).field_data!.find((f) => f.name === 'phone_number')!.values![0]);
    expect(phones).toEqual(['+919000000001', '+919000000002', '+919012345678']);
  });
});
