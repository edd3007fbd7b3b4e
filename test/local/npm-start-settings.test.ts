/**
 * `npm start`'s settings of CONTRACT.md section 6, each in a real run: DYNAMODB_ENDPOINT (no database
 * of its own; tables and seed made there), Ctrl-C (SIGINT to the whole foreground process group, as a
 * terminal sends it), the default seed, and the default ports 3000 and 8000. A test machine may
 * already use 3000 or 8000: then the one-line refusal naming that port is what proves the default.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { dynamoDbAnswers, freePort } from '../../scripts/dynamodb-local.ts';
import { DEFAULT_SEED_FILE, projectRoot } from '../../scripts/local/environment.ts';
import { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { bannerOf, dynamoDbLocalOn, errorLines, killGroup, processGroup, spawnNpmStart, waitFor, type StartedService } from '../support/processes.ts';

const DEMO_KEY = 'demo-key-please-change';
const demoLead = (mobile: string) => ({ name: 'Ravi Kumar', mobile_number: mobile, projectID: 'PRJ-1', campaignID: 'CMP-1', notes: '2 BHK' });

/** The environment of a newcomer's shell: none of this test run's settings, and nothing kept on disk. */
const shellEnv = (extra: Record<string, string>) => {
  const env: NodeJS.ProcessEnv = { ...process.env, LEAD_INTAKE_DATA_DIR: ':memory:', ...extra };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS', 'LEAD_INTAKE_SEED', 'PORT', 'DYNAMODB_PORT', 'TEST_DYNAMODB_ENDPOINT']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
};

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '0.0.0.0', exclusive: true }, () => probe.close(() => resolve(true)));
  });

const postPortalA = (baseUrl: string, body: unknown, key = DEMO_KEY) =>
  fetch(`${baseUrl}/api/portala-lead-create`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });

/** Java processes in a process group. */
const javaIn = (pgid: number) => {
  try {
    return execFileSync('pgrep', ['-g', String(pgid), 'java'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

let started: StartedService | undefined;
afterEach(() => {
  killGroup(started?.child.pid);
  started = undefined;
});

describe('npm start with DYNAMODB_ENDPOINT', () => {
  it('starts no database, creates its tables and applies the seed there, and leaves that database running on Ctrl-C', async () => {
    const endpoint = process.env.TEST_DYNAMODB_ENDPOINT!;
    const suffix = Date.now().toString(36);
    const tables = { config: `shared-${suffix}-Config`, leads: `shared-${suffix}-Leads` };
    const port = await freePort();
    started = spawnNpmStart(projectRoot, shellEnv({ DYNAMODB_ENDPOINT: endpoint, CONFIG_TABLE_NAME: tables.config, LEADS_TABLE_NAME: tables.leads, PORT: String(port) }));
    const banner = await bannerOf(started);
    expect(banner).toContain(`DynamoDB:            ${endpoint} (DYNAMODB_ENDPOINT: not started here)`);
    expect(banner).toContain(`npm start: preparing the tables and the seed on the DynamoDB at ${endpoint}, then the service on http://127.0.0.1:${port}...\n`);
    expect(javaIn(started.child.pid!)).toEqual([]);

    const { TableNames = [] } = await new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }).send(new ListTablesCommand({}));
    expect(TableNames).toEqual(expect.arrayContaining([tables.config, tables.leads]));

    const answer = await postPortalA(`http://127.0.0.1:${port}`, demoLead('9123456780'));
    expect(answer.status).toBe(200);
    const repository = new DynamoDbRepository(createDocumentClient({ endpoint }), tables);
    expect((await repository.leadArchive.listLeads('acc-demo', ['PRJ-1'])).map((lead) => lead.mobile_number)).toEqual(['9123456780']);

    process.kill(-started.child.pid!, 'SIGINT');
    expect(await started.exited).toBe(0);
    expect(errorLines(started)).toEqual([]);
    expect(await dynamoDbAnswers(endpoint)).toBe(true);
  }, 60_000);
});

describe('npm start without DYNAMODB_PORT and LEAD_INTAKE_SEED, stopped with Ctrl-C', () => {
  it('starts DynamoDB Local on port 8000 (or says 8000 is taken) with seed/demo.json, and stops everything with exit code 0', async () => {
    const port = await freePort();
    let dynamoPort = 8000;
    const inUse = 'npm start: DynamoDB port 8000 is already in use; set DYNAMODB_PORT to a free port, or DYNAMODB_ENDPOINT=http://127.0.0.1:8000 to use the database already there';
    let banner: string | undefined;
    if (await portIsFree(8000)) {
      started = spawnNpmStart(projectRoot, shellEnv({ PORT: String(port) }));
      // Another process (a second npm test, say) may take 8000 between that check and Java's bind: the same one line.
      banner = await bannerOf(started).catch(async () => {
        expect(await started!.exited).toBe(1);
        expect(errorLines(started!)).toEqual([inUse]);
        return undefined;
      });
    } else {
      const refused = spawnNpmStart(projectRoot, shellEnv({ PORT: String(port) }));
      expect(await refused.exited).toBe(1);
      expect(errorLines(refused)).toEqual([inUse]);
    }
    if (banner === undefined) {
      dynamoPort = await freePort();
      started = spawnNpmStart(projectRoot, shellEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort) }));
      banner = await bannerOf(started);
    }
    expect(banner).toContain(`DynamoDB:            http://127.0.0.1:${dynamoPort} (in memory`);
    // No LEAD_INTAKE_SEED: seed/demo.json, with its demo key.
    const demo = JSON.parse(readFileSync(DEFAULT_SEED_FILE, 'utf8')) as { accounts: unknown[]; apiKeys: unknown[] };
    expect(banner).toContain(`Seed:                seed/demo.json (${demo.accounts.length} account(s), ${demo.apiKeys.length} API key(s))`);
    expect(banner).toContain(`Demo API key:        ${DEMO_KEY} (account acc-demo)`);
    expect((await postPortalA(`http://127.0.0.1:${port}`, demoLead('9123456781'))).status).toBe(200);
    const serving = started!;
    const pgid = serving.child.pid!;
    expect(dynamoDbLocalOn(dynamoPort)).toHaveLength(1);

    // A terminal's Ctrl-C reaches every process of the foreground group: npm, node and Java alike.
    process.kill(-pgid, 'SIGINT');
    expect(await serving.exited).toBe(0);
    expect(errorLines(serving)).toEqual([]);
    await waitFor(() => processGroup(pgid).length === 0, 'the process group to empty', 10_000).catch(() => undefined);
    expect(processGroup(pgid)).toEqual([]);
    expect(dynamoDbLocalOn(dynamoPort)).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  }, 60_000);
});

describe('npm start without PORT', () => {
  it('serves on 127.0.0.1:3000, or says that port 3000 is taken', async () => {
    const free = await portIsFree(3000);
    const suffix = Date.now().toString(36);
    // On the run's database: this is about the HTTP port, not about starting Java.
    started = spawnNpmStart(
      projectRoot,
      shellEnv({ DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT!, CONFIG_TABLE_NAME: `port-${suffix}-Config`, LEADS_TABLE_NAME: `port-${suffix}-Leads` }),
    );
    if (free) {
      expect(await bannerOf(started)).toContain('Lead intake service: http://127.0.0.1:3000');
      expect((await postPortalA('http://127.0.0.1:3000', demoLead('9123456782'))).status).toBe(200);
    } else {
      expect(await started.exited).toBe(1);
      expect(errorLines(started)).toEqual(['npm start: port 3000 is already in use on 127.0.0.1; set PORT to a free port']);
    }
  }, 60_000);
});
