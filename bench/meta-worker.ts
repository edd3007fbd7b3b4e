/**
 * `node bench/meta-worker.ts [runs]`: the Meta worker's bundle (esbuild with the options of
 * lib/constructs/lead-function.ts) and its cold start: a fresh `node` process that imports the bundle
 * and handles one SQS event of one leadgen change (page read, token opened, the lead read from a local
 * fake Graph API, the lead stored in DynamoDB Local), beside the social function's bundle. Printed, not
 * kept in bench/results.json: the worker consumes a queue, so its cold start delays a lead, not an answer.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { startDynamoDbLocal } from '../scripts/dynamodb-local.ts';
import { createDocumentClient, createDynamoDbClient } from '../shared/dynamodb/client.ts';
import { createTables } from '../shared/dynamodb/create-tables.ts';
import { DynamoDbRepository } from '../shared/dynamodb/repository.ts';
import { AccountAdmin } from '../shared/domain/account-admin.ts';
import { localTokenCipher } from '../shared/meta/token-cipher.ts';
import { fakeGraph, fieldData } from '../test/support/fake-graph.ts';
import { lambdaBuildOptions } from './cold-start.ts';
import { repositoryRoot } from './http-server.ts';
import { median, round } from './stats.ts';
import { metaPagesOf } from '../shared/meta/page-store.ts';

const runs = Number(process.argv[2] ?? 7);
const APP_SECRET = 'bench-app-secret';
const TOKEN = 'bench-page-token';

const dir = await mkdtemp(path.join(tmpdir(), 'lead-intake-bench-meta-'));
const dynamo = await startDynamoDbLocal();
const graph = await fakeGraph(APP_SECRET);
try {
  const options = await lambdaBuildOptions();
  const sizes: Record<string, { minified: number; gzipped: number }> = {};
  const bundles: Record<string, string> = {};
  for (const [name, entry] of [['meta-worker', 'functions/meta-worker/handler.ts'], ['meta-webhook', 'functions/meta-webhook/handler.ts'], ['social', 'functions/social/handler.ts']] as const) {
    const outfile = path.join(dir, name, 'index.mjs');
    await build({ ...options, entryPoints: [path.join(repositoryRoot, entry)], outfile });
    bundles[name] = outfile;
    sizes[name] = { minified: (await stat(outfile)).size, gzipped: gzipSync(await readFile(outfile)).length };
  }

  const client = createDynamoDbClient({ endpoint: dynamo.endpoint });
  const tables = await createTables(client, 'bench_meta_');
  const repository = new DynamoDbRepository(createDocumentClient({ client }), tables);
  await new AccountAdmin(repository.accounts).configure({
    id: 'acc-bench',
    name: 'Bench',
    duplicateSetting: 'create',
    projects: new Map([['PRJ-1', { id: 'PRJ-1', name: 'P' }]]),
    campaigns: new Map([['CMP-1', { id: 'CMP-1', projectId: 'PRJ-1', name: 'C' }]]),
    websiteSubSources: new Set(),
    socialSubSources: new Set(['fb']),
  });
  await metaPagesOf(repository).savePage('acc-bench', '777', await localTokenCipher().seal('777', TOKEN));
  await metaPagesOf(repository).saveForm('acc-bench', '777', '888', { projectID: 'PRJ-1', campaignID: 'CMP-1' });

  const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
  const env = {
    ...inherited,
    CONFIG_TABLE_NAME: tables.config,
    LEADS_TABLE_NAME: tables.leads,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    META_APP_SECRET: APP_SECRET,
    META_VERIFY_TOKEN: 'bench',
    META_GRAPH_API_URL: graph.url,
    META_QUEUE_URL: 'http://127.0.0.1:9/000000000000/unused',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  const driver = path.join(repositoryRoot, 'bench', 'cold-driver.mjs');
  const once = (leadgenId: string) =>
    new Promise<{ importMs: number; answeredMs: number; firstMs: number }>((resolve, reject) => {
      graph.serve(leadgenId, TOKEN, { platform: 'fb', form_id: '888', field_data: fieldData({ full_name: 'Bench Lead', phone_number: '9876500000' }) });
      const record = { messageId: leadgenId, receiptHandle: leadgenId, body: JSON.stringify({ pageId: '777', leadgenId, formId: '888', requestId: `bench-${leadgenId}` }), attributes: { ApproximateReceiveCount: '1' } };
      const child = spawn(process.execPath, [driver, bundles['meta-worker']!, 'handler'], { env: { ...env, BENCH_EVENTS: JSON.stringify([{ Records: [record] }]) }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
      child.once('exit', (code) => {
        const line = out.split('\n').find((l) => l.startsWith('BENCH '));
        if (code !== 0 || !line) return reject(new Error(`worker process failed (${code})`));
        const sample = JSON.parse(line.slice(6));
        resolve({ importMs: sample.importMs, answeredMs: sample.answeredMs, firstMs: sample.requestMs[0] });
      });
    });
  const samples = [];
  await once('5000000'); // a cold file cache: not counted
  for (let i = 1; i <= runs; i += 1) samples.push(await once(String(5_000_000 + i)));
  const stored = (await repository.leadArchive.listLeads('acc-bench', ['PRJ-1'])).length;

  for (const [name, size] of Object.entries(sizes)) console.log(`${name.padEnd(13)} bundle ${(size.minified / 1024).toFixed(1)} KB minified, ${(size.gzipped / 1024).toFixed(1)} KB gzipped`);
  console.log(
    `meta-worker cold start over ${runs} runs (median): import ${round(median(samples.map((s) => s.importMs)), 1)} ms, ` +
      `first SQS event handled ${round(median(samples.map((s) => s.firstMs)), 1)} ms, ` +
      `process start to handled ${round(median(samples.map((s) => s.answeredMs)), 1)} ms; leads stored: ${stored} of ${runs + 1}`,
  );
} finally {
  await graph.close();
  await dynamo.stop();
  await rm(dir, { recursive: true, force: true });
}
