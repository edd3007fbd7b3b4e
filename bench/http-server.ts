/**
 * The HTTP leg: `npm start`'s server (scripts/start.ts) as a child process, on a free port, over the
 * bench's DynamoDB Local (DYNAMODB_ENDPOINT, so it starts no database of its own) and the bench's
 * tables, seeded from a seed file in the contract's format (CONTRACT.md section 5).
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort, stopChild } from '../scripts/dynamodb-local.ts';
import type { TableNames } from '../shared/dynamodb/repository.ts';
import { WEBSITE_SUB_SOURCE } from './service.ts';

export const repositoryRoot = path.resolve(import.meta.dirname, '..');

export interface RunningHttpServer {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly accountId: string;
  readonly projectID: string;
  readonly campaignID: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export interface HttpServerOptions {
  readonly dynamodbEndpoint: string;
  readonly tables: TableNames;
  /** The deployed default is 30 s; `npm start` makes it 0 unless set, which re-reads the key and account on every request. */
  readonly configCacheTtlSeconds?: number;
  readonly startTimeoutMs?: number;
}

export const startHttpServer = async ({ dynamodbEndpoint, tables, configCacheTtlSeconds = 30, startTimeoutMs = 60_000 }: HttpServerOptions): Promise<RunningHttpServer> => {
  const dir = await mkdtemp(path.join(tmpdir(), 'lead-intake-bench-'));
  const seedFile = path.join(dir, 'seed.json');
  const apiKey = `bench-http-${process.pid}-${Date.now()}`;
  const accountId = 'acc-bench-http';
  const projectID = 'PRJ-HTTP';
  const campaignID = 'CMP-HTTP';
  const seed = {
    accounts: [
      {
        id: accountId,
        name: 'Bench HTTP Realty',
        duplicateHandling: 'ignore',
        projects: [{ id: projectID, name: 'Bench Towers', campaigns: [{ id: campaignID, name: 'Bench launch' }] }],
        subSources: { website: [WEBSITE_SUB_SOURCE], social: ['fb', 'ig', 'wp'] },
      },
    ],
    apiKeys: [{ key: apiKey, accountId, active: true }],
  };
  await writeFile(seedFile, JSON.stringify(seed, null, 2));
  const port = await freePort();

  // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof": profile the server under the bench's load.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // The server's stdout (a log line per request) goes to a file, as `npm start > server.log` would:
  // read through a pipe, every line would wake the bench's process to drop it, on the cores the
  // server and DynamoDB Local share, and the server's writes to a pipe are synchronous.
  const logFile = path.join(dir, 'server.log');
  const logFd = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeArgs, path.join(repositoryRoot, 'scripts', 'start.ts')], {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      PORT: String(port),
      DYNAMODB_ENDPOINT: dynamodbEndpoint,
      CONFIG_TABLE_NAME: tables.config,
      LEADS_TABLE_NAME: tables.leads,
      LEAD_INTAKE_SEED: seedFile,
      LEAD_INTAKE_DATA_DIR: ':memory:',
      CONFIG_CACHE_TTL_SECONDS: String(configCacheTtlSeconds),
    },
    stdio: ['ignore', logFd, 'pipe'],
  });
  closeSync(logFd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4000)));

  const stop = async () => {
    await stopChild(child, exited);
    await rm(dir, { recursive: true, force: true });
  };

  // The banner names the base URL; the file is read until it is there.
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const started = Date.now();
    let done = false;
    const poll = async () => {
      if (done) return;
      const match = /Lead intake service: (http:\/\/\S+)/.exec(await readFile(logFile, 'utf8').catch(() => ''));
      if (match) {
        done = true;
        return resolve(match[1]!);
      }
      if (Date.now() - started > startTimeoutMs) {
        done = true;
        return reject(new Error(`npm start did not print its banner within ${startTimeoutMs} ms: ${stderr.trim()}`));
      }
      setTimeout(() => void poll(), 50);
    };
    child.once('exit', (code, signal) => {
      if (done) return;
      done = true;
      reject(new Error(`npm start exited (${signal ?? code}) before serving: ${stderr.trim()}`));
    });
    void poll();
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });

  return { baseUrl, apiKey, accountId, projectID, campaignID, pid: child.pid!, stop };
};
