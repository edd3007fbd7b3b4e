/**
 * `npm start` as a tester runs it: a child process on free ports, with its own DynamoDB Local in
 * memory and a test seed, driven over real HTTP, then stopped with SIGTERM.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { waitFor, processGroup, dynamoDbLocalOn, killGroup, spawnNpmStart, type StartedService } from '../support/processes.ts';

const KEY = 'e2e-key-not-secret';
const ACCOUNT = 'acc-e2e';
const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-start-'));
const seedFile = path.join(dir, 'seed.json');
writeFileSync(
  seedFile,
  JSON.stringify({
    accounts: [
      {
        id: ACCOUNT,
        name: 'E2E Realty',
        duplicateHandling: 'ignore',
        projects: [{ id: 'PRJ-E', name: 'Lakeside', campaigns: [{ id: 'CMP-E', name: 'Launch' }] }],
        subSources: { website: ['Lakeside page'], social: ['ig'] },
      },
    ],
    apiKeys: [{ key: KEY, accountId: ACCOUNT, active: true }],
  }),
);

/** Environment of a child: none of the test run's database settings. */
const childEnv = (extra: Record<string, string>) => {
  const env: NodeJS.ProcessEnv = { ...process.env, LEAD_INTAKE_DATA_DIR: ':memory:', LEAD_INTAKE_SEED: seedFile, ...extra };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS']) delete env[name];
  return env;
};

type Started = StartedService;

const startService = (env: NodeJS.ProcessEnv): Started => spawnNpmStart(projectRoot, env);

describe('npm start', () => {
  let service: Started;
  let port: number;
  let dynamoPort: number;
  let baseUrl: string;

  const post = (route: string, body: unknown, headers: Record<string, string> = { 'x-api-key': KEY }) =>
    fetch(`${baseUrl}/api/${route}-lead-create`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const lead = (overrides: Record<string, string>) => ({ name: 'Asha Verma', projectID: 'PRJ-E', campaignID: 'CMP-E', ...overrides });

  beforeAll(async () => {
    port = await freePort();
    dynamoPort = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    service = startService(childEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort) }));
    await Promise.race([
      waitFor(() => service.output().includes('Ctrl-C stops'), 'the banner'),
      service.exited.then((code) => Promise.reject(new Error(`npm start exited with ${code}: ${service.errors()}`))),
    ]);
  }, 60_000);

  afterAll(() => killGroup(service?.child.pid));

  it('prints the base URL, the DynamoDB endpoint, the demo key and a curl line per endpoint', () => {
    const banner = service.output();
    expect(banner).toContain(`Lead intake service: ${baseUrl}`);
    expect(banner).toContain(`DynamoDB:            http://127.0.0.1:${dynamoPort} (in memory`);
    expect(banner).toContain(`Demo API key:        ${KEY} (account ${ACCOUNT})`);
    const curls = banner.split('\n').filter((line) => line.startsWith('curl '));
    expect(curls.map((line) => line.match(/\/api\/(\w+)-lead-create/)?.[1])).toEqual(['website', 'portala', 'portalb', 'social']);
  });

  it('says at once what it is starting, before the wait for Java: its first line, ahead of the banner', () => {
    const own = service.output().split('\n').filter((line) => line.trim() && !line.startsWith('> '));
    expect(own[0]).toBe(`npm start: starting DynamoDB Local (Java) on port ${dynamoPort} (in memory, nothing is kept), then the tables, the seed and the service on ${baseUrl}...`);
    expect(own[1]).toBe(`Lead intake service: ${baseUrl}`);
  });

  it('creates a lead on each endpoint with the curl lines exactly as printed', () => {
    const curls = service.output().split('\n').filter((line) => line.startsWith('curl '));
    const answers: any[] = curls.map((line) => JSON.parse(execFileSync('sh', ['-c', line], { encoding: 'utf8' })));
    expect(answers.map((answer) => answer.message)).toEqual(Array(4).fill('Lead created successfully'));
    expect(answers[0].data).toMatchObject({ source: 'website', sub_source: 'Lakeside page', projectID: 'PRJ-E', mobile_number: '9876543210' });
    expect(answers[3]).toEqual({ status: true, message: 'Lead created successfully' });
  });

  it.each(['website', 'portala', 'portalb', 'social'])('answers %s over HTTP with x-request-id, and refuses a missing key and a bad mobile', async (route) => {
    const own: Record<string, Record<string, string>> = { website: { sub_source: 'Lakeside page' }, portala: { notes: 'n' }, portalb: { notes: 'n' }, social: { platform: 'ig' } };
    const mobile = `970000000${['website', 'portala', 'portalb', 'social'].indexOf(route)}`;
    const created = await post(route, lead({ mobile_number: mobile, ...own[route] }));
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(created.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    const noKey = await post(route, lead({ mobile_number: '9000000001', ...own[route] }), {});
    expect([noKey.status, await noKey.json()]).toEqual([401, { status: false, message: 'API Key missing' }]);
    const badKey = await post(route, lead({ mobile_number: '9000000001', ...own[route] }), { 'x-api-key': 'wrong' });
    expect([badKey.status, ((await badKey.json()) as { message: string }).message]).toEqual([401, 'Invalid API credentials']);

    const invalid = await post(route, lead({ mobile_number: '12345', ...own[route] }));
    expect(invalid.status).toBe(422);
    expect(((await invalid.json()) as { errors: object }).errors).toHaveProperty('mobile_number');
  });

  it('answers the website CORS preflight naming x-api-key', async () => {
    const response = await fetch(`${baseUrl}/api/website-lead-create`, {
      method: 'OPTIONS',
      headers: { origin: 'https://www.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toContain('x-api-key');
  });

  it('answers 413 to a body over 64 KiB, after the key check', async () => {
    const big = lead({ mobile_number: '9000000002', sub_source: 'Lakeside page', notes: 'x'.repeat(70_000) });
    expect((await post('website', big)).status).toBe(413);
    expect((await post('website', big, {})).status).toBe(401);
  });

  it('answers 404 and 405 in the envelope for what is not a route', async () => {
    const notFound = await fetch(`${baseUrl}/api/leads`);
    expect([notFound.status, await notFound.json()]).toEqual([404, { status: false, message: 'Not found' }]);
    expect((await fetch(`${baseUrl}/api/portala-lead-create`)).status).toBe(405);
  });

  it('lets the admin CLI list the leads it stored, oldest first', () => {
    const stdout = execFileSync('npm', ['run', '--silent', 'admin', '--', 'leads', '--account', ACCOUNT, '--json'], {
      cwd: projectRoot,
      env: { ...childEnv({}), DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}` },
      encoding: 'utf8',
    });
    const leads = JSON.parse(stdout);
    expect(leads).toHaveLength(8);
    expect(leads.map((l: { source: string }) => l.source).slice(0, 4)).toEqual(['website', 'portala', 'portalb', 'social']);
    expect(leads.map((l: { id: string }) => l.id)).toEqual(leads.map((l: { id: string }) => l.id).sort());
  });

  it('never logs the key', () => {
    const logLines = service.output().split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(10);
    expect(logLines.join('\n')).not.toContain(KEY);
  });

  it('stops on SIGTERM with exit code 0, leaving no process behind, DynamoDB Local included', async () => {
    const pgid = service.child.pid!;
    expect(dynamoDbLocalOn(dynamoPort)).toHaveLength(1);
    expect(processGroup(pgid).length).toBeGreaterThanOrEqual(2);
    process.kill(pgid, 'SIGTERM'); // npm itself, as a process manager or `kill` would
    expect(await service.exited).toBe(0);
    await waitFor(() => processGroup(pgid).length === 0, 'the process group to empty', 10_000).catch(() => undefined);
    expect(processGroup(pgid)).toEqual([]);
    expect(dynamoDbLocalOn(dynamoPort)).toEqual([]);
    await expect(fetch(baseUrl)).rejects.toThrow();
  }, 20_000);
});

describe('npm start with a data folder', () => {
  const dataDir = path.join(dir, 'data');
  let pgid: number | undefined;

  afterAll(() => killGroup(pgid));

  it('keeps the leads across a restart, and stops cleanly each time', async () => {
    const port = await freePort();
    const dynamoPort = await freePort();
    const env = childEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort), LEAD_INTAKE_DATA_DIR: dataDir });
    const run = async (body: Record<string, string>): Promise<{ status: boolean; message: string }> => {
      const service = startService(env);
      pgid = service.child.pid;
      await Promise.race([
        waitFor(() => service.output().includes('Ctrl-C stops'), 'the banner'),
        service.exited.then((code) => Promise.reject(new Error(`npm start exited with ${code}: ${service.errors()}`))),
      ]);
      expect(service.output()).toContain('kept across restarts');
      const response = await fetch(`http://127.0.0.1:${port}/api/portala-lead-create`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Ravi', projectID: 'PRJ-E', campaignID: 'CMP-E', notes: 'n', ...body }),
      });
      const answer = (await response.json()) as { status: boolean; message: string };
      process.kill(service.child.pid!, 'SIGTERM');
      expect(await service.exited).toBe(0);
      return answer;
    };

    const first = await run({ mobile_number: '9123400001' });
    expect(first.status).toBe(true);
    // The same mobile after a restart: the first lead is still there, so this one is a duplicate.
    expect(await run({ mobile_number: '9123400001' })).toEqual({ status: false, message: 'Lead already exists' });
    expect(dynamoDbLocalOn(dynamoPort)).toEqual([]);
  }, 60_000);
});

describe('npm start with a port in use', () => {
  let blocker: Server;
  let pgid: number | undefined;

  afterAll(async () => {
    killGroup(pgid);
    await new Promise((resolve) => blocker?.close(resolve));
  });

  it('says so in one line and exits 1, before starting DynamoDB Local', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const dynamoPort = await freePort();
    const service = startService(childEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort) }));
    pgid = service.child.pid;
    expect(await service.exited).toBe(1);
    const errors = service.errors().split('\n').filter((line) => line.trim() && !line.startsWith('npm warn') && !line.startsWith('npm error'));
    expect(errors).toEqual([`npm start: port ${port} is already in use on 127.0.0.1; set PORT to a free port`]);
    expect(service.errors()).not.toMatch(/^\s+at /m);
    expect(dynamoDbLocalOn(dynamoPort)).toEqual([]);
  }, 30_000);
});
