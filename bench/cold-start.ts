/**
 * Section 5: each function's real bundle (esbuild with the options of lib/constructs/lead-function.ts)
 * and its cold start: a fresh `node` process that imports the bundle and answers one request (the
 * configuration is not cached yet: key, account, then the transaction), against a fresh process that
 * only imports @aws-sdk/client-dynamodb. Processes of all kinds are interleaved, round by round.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import type { TableNames } from '../shared/dynamodb/repository.ts';
import { apiGatewayEvent } from '../shared/http/api-gateway-event.ts';
import { type EndpointName } from '../shared/routes.ts';
import { leadRoutes } from '../shared/sources/registry.ts';
import { nodeBuiltinAliases } from '../lib/bundling/node-builtins.ts';
import { repositoryRoot } from './http-server.ts';
import { leadBody, pathOf } from './service.ts';
import { median, ratio, round } from './stats.ts';

export interface BundleSize {
  readonly function: string;
  /** Rows that are not a deployed function: the SDK-only floor and the bundle as it was before. */
  readonly informative?: boolean;
  readonly minifiedBytes: number;
  readonly gzippedBytes: number;
  /** The biggest packages in the bundle, bytes of output. */
  readonly topPackages: readonly { readonly name: string; readonly bytes: number }[];
}

export interface ColdStartRow {
  readonly subject: string;
  /** Median ms from process start to the answer (or to the end of the import, for the floors). */
  readonly medianMs: number;
  readonly medianImportMs: number;
  readonly medianWallMs: number;
  /** Median CPU time of the process up to the answer (the rest of the wait is DynamoDB and I/O). */
  readonly medianCpuMs: number;
  /** Median time of the first request alone, and of the same request again in the warm process. */
  readonly medianFirstRequestMs?: number;
  readonly medianWarmRequestMs?: number;
  readonly overFloor: number;
  readonly statuses: readonly number[];
  /** Timed beside this code's functions, no target of its own: the SDK alone, BENCH_COLD_COMPARE's bundles. */
  readonly informative?: boolean;
}

export interface ColdStartResult {
  readonly bundles: readonly BundleSize[];
  readonly floor: string;
  readonly rows: readonly ColdStartRow[];
  readonly runs: number;
}

/** The NodejsFunction bundling of lib/constructs/lead-function.ts, as esbuild options. */
export const lambdaBuildOptions = async (): Promise<BuildOptions & { metafile: true }> => {
  const { esmRequireBanner, bundleAliases } = await import('../lib/constructs/lead-function.ts');
  return {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    mainFields: ['module', 'main'],
    banner: { js: esmRequireBanner },
    alias: bundleAliases(),
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'warning',
    metafile: true,
    absWorkingDir: repositoryRoot,
  };
};

/** The service's DynamoDB client making the cold request's three round trips and nothing else (bench/cold-sdk-alone.ts). */
export const SDK_ALONE = 'the SDK alone, the cold request\'s three round trips';

/** The website function as it was bundled before the environment-only credentials (for comparison). */
export const PROPOSED = 'website, before: SDK default credential chain';

const packageOf = (input: string): string => {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return input.split('/').slice(0, 2).join('/');
  const rest = input.slice(at + 'node_modules/'.length).split('/');
  return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
};

const topPackages = (metafile: Metafile | undefined, outfile: string) => {
  if (!metafile) return [];
  const output = Object.entries(metafile.outputs).find(([name]) => name.endsWith(path.basename(outfile)) && !name.endsWith('.map'))![1];
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + bytesInOutput);
  return [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([name, bytes]) => ({ name, bytes }));
};

interface Sample {
  readonly answeredMs: number;
  readonly answeredCpuMs: number;
  readonly importMs: number;
  readonly wallMs: number;
  readonly requestMs: readonly number[];
  readonly statuses: readonly number[];
}

const runProcess = (args: string[], env: NodeJS.ProcessEnv): Promise<Sample> =>
  new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - start;
      const line = out.split('\n').find((l) => l.startsWith('BENCH '));
      if (code !== 0 || !line) return reject(new Error(`cold-start process failed (${code}): ${err.slice(-2000)}`));
      const { answeredMs, answeredCpuMs, importMs, requestMs, statuses } = JSON.parse(line.slice('BENCH '.length));
      resolve({ answeredMs, answeredCpuMs, importMs, wallMs, requestMs, statuses });
    });
  });

export const measureColdStart = async (
  { dynamodbEndpoint, tables, apiKey, projectID, campaignID }: { dynamodbEndpoint: string; tables: TableNames; apiKey: string; projectID: string; campaignID: string },
  { runs, compare = [] }: { runs: number; compare?: readonly { readonly label: string; readonly bundle: string }[] },
): Promise<ColdStartResult> => {
  const dir = await mkdtemp(path.join(tmpdir(), 'lead-intake-bench-bundles-'));
  try {
    const options = await lambdaBuildOptions();
    const bundles: BundleSize[] = [];
    const bundleFiles = {} as Record<EndpointName, string>;
    for (const route of leadRoutes) {
      const outfile = path.join(dir, route.endpoint, 'index.mjs');
      const result = await build({ ...options, entryPoints: [path.join(repositoryRoot, route.entry)], outfile });
      const code = await readFile(outfile);
      bundleFiles[route.endpoint] = outfile;
      bundles.push({
        function: route.endpoint,
        minifiedBytes: (await stat(outfile)).size,
        gzippedBytes: gzipSync(code).length,
        topPackages: topPackages(result.metafile, outfile),
      });
    }
    const extra = async (name: string, entry: string, more: Record<string, unknown> = {}) => {
      const outfile = path.join(dir, name.replace(/\W+/g, '-'), 'index.mjs');
      const result = await build({ ...options, ...more, entryPoints: [entry], outfile, nodePaths: [path.join(repositoryRoot, 'node_modules')] });
      bundles.push({
        function: name,
        informative: true,
        minifiedBytes: (await stat(outfile)).size,
        gzippedBytes: gzipSync(await readFile(outfile)).length,
        topPackages: topPackages(result.metafile, outfile),
      });
      return outfile;
    };
    // The size floor of anything that talks to DynamoDB: the client alone, bundled the same way.
    const clientEntry = path.join(dir, 'client-entry.mjs');
    await writeFile(clientEntry, "export { DynamoDBClient } from '@aws-sdk/client-dynamodb';\n");
    const clientBundle = await extra('DynamoDBClient alone', clientEntry);
    // What Node, the SDK and DynamoDB Local cost a function that makes the cold request's round trips.
    const sdkAloneBundle = await extra(SDK_ALONE, path.join(repositoryRoot, 'bench', 'cold-sdk-alone.ts'));
    // Before the change in lib/constructs/lead-function.ts: the SDK's default credential chain.
    const proposedBundle = await extra(PROPOSED, path.join(repositoryRoot, 'functions', 'website', 'handler.ts'), { alias: nodeBuiltinAliases() });

    const driver = path.join(repositoryRoot, 'bench', 'cold-driver.mjs');
    const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
    const functionEnv = {
      ...inherited,
      CONFIG_TABLE_NAME: tables.config,
      LEADS_TABLE_NAME: tables.leads,
      DYNAMODB_ENDPOINT: dynamodbEndpoint,
    };
    const FLOOR = 'import @aws-sdk/client-dynamodb (node_modules)';
    type Job = { subject: string; informative?: boolean; run: () => Promise<Sample> };
    const handlerJob = (name: EndpointName, sourceMaps: boolean, bundle = bundleFiles[name], label: string = name): Job => ({
      subject: `${label}: import bundle + first request${sourceMaps ? ' (with --enable-source-maps, as before)' : ''}`,
      run: () => {
        // The cold request, then the same kind of request (a new lead) twice more in the warm process.
        const events = [0, 1, 2].map(() =>
          apiGatewayEvent({
            path: pathOf(name),
            headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
            body: JSON.stringify(leadBody(name, projectID, campaignID)),
          }),
        );
        // As deployed, without --enable-source-maps (docs/decisions/0007); with it for comparison.
        const env = { ...functionEnv, BENCH_EVENTS: JSON.stringify(events), ...(sourceMaps && { NODE_OPTIONS: '--enable-source-maps' }) };
        return runProcess([driver, bundle, 'handler'], env);
      },
    });
    const jobs: Job[] = [
      { subject: FLOOR, run: () => runProcess([driver, '@aws-sdk/client-dynamodb', 'import'], inherited) },
      { subject: 'import DynamoDBClient, bundled like the functions', run: () => runProcess([driver, clientBundle, 'import'], inherited) },
      ...leadRoutes.map((route) => handlerJob(route.endpoint, false)),
      handlerJob('website', true),
      handlerJob('website', false, proposedBundle, PROPOSED),
      { ...handlerJob('website', false, sdkAloneBundle, SDK_ALONE), informative: true },
      ...compare.map(({ label, bundle }) => ({ ...handlerJob('website', false, path.resolve(bundle), `${label} (compared)`), informative: true })),
    ];
    const samples = new Map<string, Sample[]>(jobs.map((job) => [job.subject, []]));
    await jobs[0]!.run(); // the first process after a build pays for a cold file cache: not counted
    for (let r = 0; r < runs; r += 1) {
      for (let k = 0; k < jobs.length; k += 1) {
        const job = jobs[(r + k) % jobs.length]!;
        samples.get(job.subject)!.push(await job.run());
      }
    }
    const floorMs = median(samples.get(FLOOR)!.map((s) => s.answeredMs));
    const rows = jobs.map(({ subject, informative }): ColdStartRow => {
      const list = samples.get(subject)!;
      const medianMs = round(median(list.map((s) => s.answeredMs)), 1);
      const handled = list[0]!.requestMs.length > 0;
      return {
        subject,
        medianMs,
        medianImportMs: round(median(list.map((s) => s.importMs)), 1),
        medianWallMs: round(median(list.map((s) => s.wallMs)), 1),
        medianCpuMs: round(median(list.map((s) => s.answeredCpuMs)), 1),
        ...(handled && {
          medianFirstRequestMs: round(median(list.map((s) => s.requestMs[0]!)), 1),
          medianWarmRequestMs: round(median(list.map((s) => s.requestMs.at(-1)!)), 1),
        }),
        overFloor: ratio(medianMs, floorMs),
        statuses: [...new Set(list.flatMap((s) => s.statuses))],
        ...(informative && { informative }),
      };
    });
    return { bundles, floor: FLOOR, rows, runs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
