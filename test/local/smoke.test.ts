/**
 * `npm run smoke` against `npm start`: every check passes on the local service, and against a broken
 * target (the local service behind a proxy that lets unsigned admin calls through, as an admin route
 * deployed without its IAM authorizer would) it exits non-zero naming the check that failed.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { SignatureV4 } from '@smithy/signature-v4';
import { DEFAULT_ADMIN_CREDENTIALS, NodeSha256 } from '../../scripts/local/admin-auth.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { bannerOf, killGroup, spawnNpmStart, type StartedService } from '../support/processes.ts';

const KEY = 'smoke-key-not-secret';
const ACCOUNT = 'acc-smoke';
const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-smoke-'));
const seedFile = path.join(dir, 'seed.json');
writeFileSync(
  seedFile,
  JSON.stringify({
    accounts: [
      {
        id: ACCOUNT,
        name: 'Smoke Realty',
        duplicateHandling: 'ignore',
        projects: [{ id: 'PRJ-S', name: 'Lakeside', campaigns: [{ id: 'CMP-S', name: 'Launch' }] }],
        subSources: { website: ['Lakeside page'], social: ['ig'] },
      },
    ],
    apiKeys: [{ key: KEY, accountId: ACCOUNT, active: true }],
  }),
);

/** A child's environment: the local admin credentials where the default AWS credential chain finds them first. */
const cleanEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'AWS_REGION', 'AWS_PROFILE', 'AWS_SESSION_TOKEN']) delete env[name];
  return env;
};

interface SmokeRun {
  readonly code: number;
  /** Standard output's lines, npm's header included when it printed one. */
  readonly lines: string[];
  readonly stderr: string;
}

/**
 * `npm run smoke -- ARGS` as an operator runs it: the key in LEAD_INTAKE_SMOKE_KEY unless `key` says
 * otherwise (`stdin`: piped in for --key-stdin; `none`: not given), and npm's header printed unless `silent`.
 */
const smoke = (args: string[], { key = 'env', silent = true }: { key?: 'env' | 'stdin' | 'none'; silent?: boolean } = {}) =>
  new Promise<SmokeRun>((resolve) => {
    const child = execFile(
      'npm',
      ['run', ...(silent ? ['--silent'] : []), 'smoke', '--', ...args],
      {
        cwd: projectRoot,
        env: cleanEnv({
          AWS_ACCESS_KEY_ID: DEFAULT_ADMIN_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: DEFAULT_ADMIN_CREDENTIALS.secretAccessKey,
          ...(key === 'env' && { LEAD_INTAKE_SMOKE_KEY: KEY }),
        }),
        timeout: 120_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, lines: stdout.split('\n').filter(Boolean), stderr }),
    );
    child.stdin!.end(key === 'stdin' ? `${KEY}\n` : '');
  });

describe('npm run smoke', () => {
  let service: StartedService;
  let baseUrl: string;
  let broken: Server;
  let brokenUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // On the run's DynamoDB Local, in tables of its own (no second database to start).
    const tables = `smoke${randomUUID().slice(0, 8)}_`;
    service = spawnNpmStart(projectRoot, {
      ...cleanEnv({ PORT: String(port), LEAD_INTAKE_SEED: seedFile }),
      DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT!,
      CONFIG_TABLE_NAME: `${tables}Config`,
      LEADS_TABLE_NAME: `${tables}Leads`,
    });
    await bannerOf(service, 90_000);

    // The broken target: the service, except that an admin call without a signature gets through. A
    // signed one is signed again for the service's own host (it serves its loopback names only), as
    // API Gateway checks the caller's signature and calls the function itself.
    broken = createServer(async (incoming, outgoing) => {
      if (incoming.url!.startsWith('/admin/') && !incoming.headers.authorization) {
        outgoing.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const target = new URL(`${baseUrl}${incoming.url}`);
      const headers: Record<string, string> = { ...(incoming.headers as Record<string, string>), host: target.host };
      if (incoming.headers.authorization) {
        const resigned = await new SignatureV4({ credentials: DEFAULT_ADMIN_CREDENTIALS, region: 'us-east-1', service: 'execute-api', sha256: NodeSha256 }).sign({
          method: incoming.method!,
          protocol: 'http:',
          hostname: target.hostname,
          port: Number(target.port),
          path: target.pathname,
          query: Object.fromEntries(target.searchParams),
          headers: { host: target.host, ...(body && { 'content-type': 'application/json' }) },
          ...(body && { body }),
        });
        Object.assign(headers, resigned.headers);
      }
      const forwarded = request(target, { method: incoming.method, headers }, (answer) => {
        outgoing.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(outgoing);
      });
      forwarded.end(body);
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    killGroup(service?.child.pid);
    await new Promise((resolve) => broken?.close(resolve));
  });

  it('passes every check against npm start, storing nothing by default', async () => {
    const { code, lines } = await smoke(['--base-url', baseUrl, '--account', ACCOUNT]);
    expect(lines.filter((line) => !line.startsWith('ok   '))).toEqual([]);
    // The signed admin read, the unsigned refusal, the preflight, three checks per endpoint, Google and Meta.
    expect(lines).toHaveLength(2 + 1 + 4 * 3 + 2);
    expect(lines).toContain('ok   portala: dry run with the key stores nothing');
    expect(code).toBe(0);
  }, 120_000);

  it('with --write stores one lead, finds it through person access and erases it', async () => {
    const { code, lines } = await smoke(['--base-url', baseUrl, '--account', ACCOUNT, '--write']);
    expect(lines.filter((line) => !line.startsWith('ok   '))).toEqual([]);
    expect(lines.slice(-3)).toEqual([
      'ok   write: one lead stored on portala',
      'ok   write: the lead found through person access',
      'ok   write: the lead erased, and no longer found',
    ]);
    expect(code).toBe(0);
  }, 120_000);

  it('exits non-zero against a broken target, with the failing check on its own line', async () => {
    const { code, lines } = await smoke(['--base-url', brokenUrl, '--account', ACCOUNT]);
    expect(code).toBe(1);
    expect(lines.filter((line) => !line.startsWith('ok   '))).toEqual(['FAIL admin call without a signature refused: answered 200 {}, expected 403']);
  }, 120_000);

  it('refuses to run without a base URL and a key, or --write without the account', async () => {
    expect((await smoke([])).code).toBe(2);
    expect((await smoke(['--base-url', baseUrl, '--account', ACCOUNT], { key: 'none' })).code).toBe(2);
    expect((await smoke(['--base-url', baseUrl, '--write'])).code).toBe(2);
  }, 60_000);

  describe('keeps the key out of every log', () => {
    /** What a CI log would hold: npm's header (which repeats the command line), each check's line, and standard error. */
    const expectNoKeyIn = (run: SmokeRun, args: string[]) => {
      expect(run.lines).toContain(`> node scripts/smoke.ts ${args.join(' ')}`);
      expect([...run.lines, ...run.stderr.split('\n')].filter((line) => line.includes(KEY))).toEqual([]);
    };

    it('passes every check with the key in LEAD_INTAKE_SMOKE_KEY, run the documented way through npm, its header included, and no line holds the key', async () => {
      const args = ['--base-url', baseUrl, '--account', ACCOUNT];
      const run = await smoke(args, { silent: false });
      expect(run.lines.filter((line) => line.startsWith('ok   '))).toHaveLength(2 + 1 + 4 * 3 + 2);
      expect(run.lines.filter((line) => line.startsWith('FAIL'))).toEqual([]);
      expectNoKeyIn(run, args);
      expect(run.code).toBe(0);
    }, 120_000);

    it('passes every check with the key on standard input (--key-stdin), and no line holds the key', async () => {
      const args = ['--base-url', baseUrl, '--account', ACCOUNT, '--key-stdin'];
      const run = await smoke(args, { key: 'stdin', silent: false });
      expect(run.lines.filter((line) => line.startsWith('ok   '))).toHaveLength(2 + 1 + 4 * 3 + 2);
      expect(run.lines.filter((line) => line.startsWith('FAIL'))).toEqual([]);
      expectNoKeyIn(run, args);
      expect(run.code).toBe(0);
    }, 120_000);

    it('refuses --key VALUE (exit 2), saying how to pass the key instead, without repeating it', async () => {
      for (const args of [['--key', KEY], [`--key=${KEY}`]]) {
        const run = await smoke(['--base-url', baseUrl, ...args], { key: 'none' });
        expect(run.code).toBe(2);
        expect(run.stderr).toContain('--key is refused');
        expect(run.stderr).toContain('LEAD_INTAKE_SMOKE_KEY');
        expect(run.stderr).toContain('--key-stdin');
        expect([...run.lines, run.stderr].join('\n')).not.toContain(KEY);
      }
    }, 60_000);

    it('refuses a stray argument (it may be the key) without repeating it', async () => {
      const run = await smoke(['--base-url', baseUrl, KEY]);
      expect(run.code).toBe(2);
      expect([...run.lines, run.stderr].join('\n')).not.toContain(KEY);
    }, 60_000);

    it('prints its usage with --help, and exits 0', async () => {
      const run = await smoke(['--help'], { key: 'none' });
      expect(run.code).toBe(0);
      expect(run.lines[0]).toMatch(/^usage: LEAD_INTAKE_SMOKE_KEY=KEY npm run smoke -- --base-url URL/);
      expect(run.lines.join('\n')).toContain('--key-stdin');
    }, 60_000);
  });
});
