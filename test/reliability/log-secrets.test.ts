/**
 * Every line the real processes print in a full run, `npm start`, the admin CLI and `npm run invoke`,
 * stdout and stderr, scanned for API keys, full mobile numbers and full e-mail addresses: 200s on
 * every endpoint, every refusal, the 503 of a throttling database, a 500 whose database error quotes
 * the lead, and the warning for a rejection record that could not be written. The database faults
 * come from a proxy in front of DynamoDB Local that answers chosen operations with DynamoDB's own
 * error bodies.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { apiGatewayEvent } from '../../shared/http/api-gateway-event.ts';
import { bannerOf, killGroup, spawnNpmStart, waitFor, type StartedService } from '../support/processes.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-log-secrets-'));
const suffix = Date.now().toString(36);
const tables = { CONFIG_TABLE_NAME: `logs-${suffix}-Config`, LEADS_TABLE_NAME: `logs-${suffix}-Leads` };
const DEMO_KEY = `logs-demo-key-${suffix}`;
const ORPHAN_KEY = `logs-orphan-key-${suffix}`;
const WRONG_KEY = `logs-wrong-key-${suffix}`;
const seedFile = path.join(dir, 'seed.json');
writeFileSync(
  seedFile,
  JSON.stringify({
    accounts: [
      {
        id: 'acc-logs',
        name: 'Log Realty',
        duplicateHandling: 'ignore',
        projects: [{ id: 'PRJ-1', name: 'Skyline', campaigns: [{ id: 'CMP-1', name: 'Launch' }] }],
        subSources: { website: ['Skyline landing page'], social: ['fb'] },
      },
    ],
    apiKeys: [
      { key: DEMO_KEY, accountId: 'acc-logs', active: true },
      { key: ORPHAN_KEY, accountId: 'acc-nobody', active: true },
    ],
  }),
);

/** DynamoDB operations the proxy fails, with the status and JSON body real DynamoDB sends. */
const faults = new Map<string, { status: number; body: object }>();
const THROTTLED = { status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' } };
const invalidQuoting = (mobile: string, email: string) => ({
  status: 400,
  body: { __type: 'com.amazon.coral.validate#ValidationException', message: `One or more parameter values were invalid: ${mobile} ${email}` },
});

const readAll = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'content-encoding']);

let proxy: Server;
let proxyUrl: string;
let service: StartedService;
let baseUrl: string;
let adminKey: string;
/** What the admin CLI and `npm run invoke` print that is not the product's own output. */
const toolOutput: string[] = [];
const secrets = new Set<string>([ORPHAN_KEY, WRONG_KEY]);

/** A full mobile as sent and as stored, and a full e-mail, remembered for the scan. */
let counter = 0;
const contact = () => {
  counter += 1;
  const mobile = `98${String(counter).padStart(3, '0')}${String(Date.now() % 100_000).padStart(5, '0')}`;
  const alternate = `7${mobile.slice(1)}`;
  const email = `lead.${counter}.${suffix}@example.com`;
  const asSent = `+91 ${mobile.slice(0, 5)} ${mobile.slice(5)}`;
  for (const secret of [mobile, alternate, email, asSent, `91${mobile}`]) secrets.add(secret);
  return { mobile, alternate, email, asSent };
};

const own: Record<string, Record<string, string>> = {
  website: { sub_source: 'Skyline landing page' },
  portala: { notes: 'n' },
  portalb: { notes: 'n' },
  social: { platform: 'fb' },
};
const lead = (endpoint: string, overrides: Record<string, unknown> = {}) => {
  const { asSent, alternate, email } = contact();
  return { name: 'Asha Verma', mobile_number: asSent, alternate_number: alternate, email, projectID: 'PRJ-1', campaignID: 'CMP-1', ...own[endpoint], ...overrides };
};

const post = async (endpoint: string, body: unknown, headers: Record<string, string> = { 'x-api-key': adminKey }) => {
  const response = await fetch(`${baseUrl}/api/${endpoint}-lead-create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, requestId: response.headers.get('x-request-id') ?? '', body: (await response.json()) as { message: string } };
};

/** `npm run -s <script> ...` as an operator runs it, on the npm start tables. */
const npmRun = (args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('npm', ['run', '-s', ...args], {
      cwd: projectRoot,
      env: { ...process.env, DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, ...tables },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // 'close', not 'exit': the output may still be in the pipes when the process exits.
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
const admin = (...args: string[]) => npmRun(['admin', '--', ...args]);

beforeAll(async () => {
  const upstream = process.env.TEST_DYNAMODB_ENDPOINT!;
  proxy = createServer(async (request, response) => {
    const body = await readAll(request);
    const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const fault = faults.get(operation);
    if (fault) {
      response.writeHead(fault.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'proxy' });
      response.end(JSON.stringify(fault.body));
      return;
    }
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name))) as Record<string, string>;
    const answer = await fetch(upstream, { method: request.method, headers, body });
    response.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => !HOP_BY_HOP.has(name))));
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, ...tables, DYNAMODB_ENDPOINT: proxyUrl, PORT: String(port), LEAD_INTAKE_SEED: seedFile };
  delete env.CONFIG_CACHE_TTL_SECONDS;
  service = spawnNpmStart(projectRoot, env);
  await bannerOf(service);

  const created = await admin('create-key', '--account', 'acc-logs');
  expect(created.code).toBe(0);
  adminKey = created.stdout.trim();
  secrets.add(adminKey);
  toolOutput.push(created.stderr);
}, 60_000);

afterAll(async () => {
  killGroup(service?.child.pid);
  await new Promise((resolve) => proxy?.close(resolve));
});

describe('a full run of npm start and the admin CLI', () => {
  it('creates a lead on every endpoint with full contact details', async () => {
    for (const endpoint of ['website', 'portala', 'portalb', 'social']) expect((await post(endpoint, lead(endpoint))).status).toBe(200);
  });

  it('refuses every way the contract refuses', async () => {
    const duplicate = lead('portala');
    expect((await post('portala', duplicate)).status).toBe(200);
    const answers = [
      await post('portala', duplicate),
      await post('website', lead('website'), {}),
      await post('website', lead('website'), { 'x-api-key': WRONG_KEY }),
      await post('portalb', lead('portalb'), { 'x-api-key': ORPHAN_KEY }),
      await post('portala', JSON.stringify(lead('portala', { notes: 'x'.repeat(70_000) }))),
      await post('social', lead('social'), { 'x-api-key': adminKey, 'content-type': 'text/plain' }),
      await post('website', `{"mobile_number":"${contact().mobile}",`),
      await post('website', lead('website', { email: `not an email ${contact().email}` })),
      await post('portala', lead('portala', { mobile_number: `${contact().mobile}0000000` })),
      await post('portalb', lead('portalb', { unexpected: contact().email })),
      await post('social', lead('social', { platform: 'wp' })),
      await post('website', lead('website', { projectID: 'PRJ-404' })),
      await post('website', lead('website', { campaignID: 'CMP-404' })),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([422, 401, 401, 404, 413, 415, 400, 422, 422, 422, 422, 422, 422]);
  });

  it('answers 503 on every endpoint while the database throttles the lead write', async () => {
    faults.set('TransactWriteItems', THROTTLED);
    try {
      for (const endpoint of ['website', 'portala', 'portalb', 'social']) {
        expect((await post(endpoint, lead(endpoint))).body.message).toBe('Service temporarily unavailable, please retry');
      }
    } finally {
      faults.delete('TransactWriteItems');
    }
  });

  it('answers 500 when the database error quotes the lead', async () => {
    const { mobile, email } = contact();
    faults.set('TransactWriteItems', invalidQuoting(mobile, email));
    try {
      const answer = await post('portala', lead('portala', { mobile_number: mobile, email }));
      expect(answer.status).toBe(500);
    } finally {
      faults.delete('TransactWriteItems');
    }
  });

  it('logs the 503 it answers when a rejection cannot be recorded (CONTRACT.md section 14)', async () => {
    // The record and its person lookup items are one BatchWriteItem; a refused project writes no lead.
    faults.set('BatchWriteItem', THROTTLED);
    let requestId: string | undefined;
    try {
      const answer = await post('website', lead('website', { projectID: 'PRJ-404' }));
      expect([answer.status, answer.body.message]).toEqual([503, 'Service temporarily unavailable, please retry']);
      requestId = answer.requestId;
    } finally {
      faults.delete('BatchWriteItem');
    }
    // npm start's log reaches this process through a pipe, possibly after the answer: wait for the line itself.
    await waitFor(() => (service.output() + service.errors()).includes(`"correlation_id":"${requestId}"`), "the 503's log line", 10_000);
  });

  it('lets the admin CLI list what happened, and refuse a key it does not know', async () => {
    // Their standard output is the product itself (the leads, for their owner); standard error is scanned.
    for (const [args, code] of [[['leads', '--account', 'acc-logs'], 0], [['rejections', '--account', 'acc-logs'], 0], [['revoke-key', WRONG_KEY], 1]] as const) {
      const run = await admin(...args);
      expect(run.code).toBe(code);
      toolOutput.push(run.stderr);
    }
  });

  it('runs npm run invoke on event files with full contact details', async () => {
    const files = [lead('portala'), lead('portala', { email: `broken@@${contact().email}` })].map((body, i) => {
      const file = path.join(dir, `event-${i}.json`);
      const headers = { 'content-type': 'application/json', 'X-Api-Key': adminKey };
      writeFileSync(file, JSON.stringify(apiGatewayEvent({ path: '/api/portala-lead-create', headers, body: JSON.stringify(body) })));
      return file;
    });
    const run = await npmRun(['invoke', '--', 'portala', ...files]);
    expect(run.code).toBe(0);
    expect([...run.stdout.matchAll(/"statusCode": (\d+)/g)].map(([, status]) => Number(status))).toEqual([200, 422]);
    // Its standard output is the handler's log and metric lines (one JSON object a line) and each
    // response, which is the product; the log lines and standard error are scanned.
    const logLines = run.stdout.split('\n').filter((line) => line.startsWith('{"'));
    expect(logLines.filter((line) => line.includes('"lead request"'))).toHaveLength(2);
    toolOutput.push(...logLines, run.stderr);
  });

  it('printed no key, full mobile number or full e-mail, anywhere but the banner', () => {
    const output = service.output();
    const bannerEnd = output.indexOf('Ctrl-C stops');
    expect(bannerEnd).toBeGreaterThan(0);
    const banner = output.slice(0, bannerEnd);
    const after = [output.slice(bannerEnd), service.errors(), ...toolOutput].join('\n');
    const lines = after.split('\n').filter((line) => line.trim());
    // The scan looked at the request log: one line per request above, and the 503 and 500 among them.
    expect(lines.filter((line) => line.startsWith('{')).length).toBeGreaterThanOrEqual(25);
    expect(after).toMatch(/"status":503/);
    expect(after).toMatch(/"status":500/);
    const leaks = [...secrets].filter((secret) => after.includes(secret));
    expect(leaks).toEqual([]);
    expect(after).not.toContain(DEMO_KEY);
    // The banner may show the seed's demo key (contract section 1), and nothing else secret.
    expect(banner).toContain(DEMO_KEY);
    expect([...secrets].filter((secret) => banner.includes(secret))).toEqual([]);
  });
});
