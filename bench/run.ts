/**
 * `npm run bench`: where the service stands against the physical limit of its own design, measured
 * side by side in one run on one DynamoDB Local (see docs/performance.md). Prints a table and writes
 * bench/results.json. Size: BENCH_* variables (bench/config.ts); `npm run bench -- --quick` for a smoke run;
 * `--markdown` also prints the table as Markdown.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { startDynamoDbLocal, type RunningDynamoDbLocal } from '../scripts/dynamodb-local.ts';
import { measureColdStart } from './cold-start.ts';
import { measureHandlerCpu } from './handler-cpu.ts';
import { benchConfig } from './config.ts';
import { captureFloor, type Subject } from './floor.ts';
import { httpClient } from './http-client.ts';
import { repositoryRoot, startHttpServer, type RunningHttpServer } from './http-server.ts';
import { measureLatency } from './latency.ts';
import { formatTable, markdownTable, rowsOf, type Results } from './report.ts';
import { startCountingProxy, type RunningProxy } from './proxy.ts';
import { measurePull } from './pull.ts';
import { measureRoundTrips } from './round-trips.ts';
import { measureScale } from './scale.ts';
import { benchService, invoke, leadBody, type BenchService } from './service.ts';
import { measureThroughput } from './throughput.ts';
import { measureWatchWrites } from './watch-writes.ts';

const progress = (text: string) => process.stderr.write(`[bench ${(performance.now() / 1000).toFixed(0).padStart(3)} s] ${text}\n`);

const machine = () => {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    java: (java.stderr || java.stdout || '').split('\n')[0]?.trim() ?? 'unknown',
    loadAverageAtStart: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
};

/** New leads through an in-process handler, one after another. */
const warmDatabase = async (service: BenchService, { apiKey, projectID, campaignID }: Subject, leads: number) => {
  const handler = service.handler('website', service.newRuntime());
  for (let i = 0; i < leads; i += 1) await invoke(handler, 'website', apiKey, leadBody('website', projectID, campaignID));
};

const main = async () => {
  const config = benchConfig();
  const startedAt = new Date();
  const machineInfo = machine();
  progress(`config ${JSON.stringify(config)}`);
  let dynamo: RunningDynamoDbLocal | undefined;
  let server: RunningHttpServer | undefined;
  let proxy: RunningProxy | undefined;
  const stopAll = async () => {
    await server?.stop().catch(() => undefined);
    await proxy?.stop().catch(() => undefined);
    await dynamo?.stop().catch(() => undefined);
  };
  const onSignal = () => void stopAll().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const results: Results = {};
  let httpServerKind: string | undefined;
  try {
    dynamo = await startDynamoDbLocal();
    progress(`DynamoDB Local (in memory) at ${dynamo.endpoint}`);
    // Everything reaches DynamoDB Local through a counting proxy, as issue 36's outside check has it
    // (the goals are set through it); BENCH_PROXY=0 leaves it out.
    if (process.env.BENCH_PROXY !== '0') {
      proxy = await startCountingProxy(dynamo.endpoint);
      progress(`counting proxy at ${proxy.endpoint} (pid ${proxy.pid})`);
    }
    const databaseEndpoint = proxy?.endpoint ?? dynamo.endpoint;
    const service = await benchService(databaseEndpoint, 'bench_');
    const has = (section: (typeof config.sections)[number]) => config.sections.includes(section);

    let subject: Subject;
    if (has('latency') || has('throughput')) {
      server = await startHttpServer({ dynamodbEndpoint: databaseEndpoint, tables: service.tables });
      httpServerKind = 'npm start (scripts/start.ts) as a child process, CONFIG_CACHE_TTL_SECONDS=30';
      progress(`npm start serving at ${server.baseUrl} (pid ${server.pid})`);
      subject = server;
    } else {
      const apiKey = await service.seedAccount({ id: 'acc-bench', projects: { 'PRJ-1': ['CMP-1'] } });
      subject = { apiKey, projectID: 'PRJ-1', campaignID: 'CMP-1' };
    }

    if (has('handlercpu')) {
      progress(`6 handler CPU: ${config.cpuRounds} rounds of ${config.cpuLeads} new leads in-process and as many bare sends each, alternating, the network stubbed`);
      results.handlerCpu = await measureHandlerCpu(service, subject, { rounds: config.cpuRounds, leads: config.cpuLeads });
    }
    if (has('pull')) {
      progress(`7 pull: a window of ${config.pullEnquiries} 99acres enquiries, pulled and pulled again, and its CPU against webhook leads over ${config.pullRounds} rounds`);
      results.pull = await measurePull(service, { enquiries: config.pullEnquiries, rounds: config.pullRounds });
    }
    if (has('watchwrites')) {
      progress(`8 watch writes: ${config.watchLeads} leads to the quiet-source watch one per stream batch, then ${config.watchLeads} ten per batch`);
      results.watchWrites = await measureWatchWrites(dynamo.endpoint, service.tables.leads, { leads: config.watchLeads });
    }
    if (has('roundtrips')) {
      progress('1 round trips');
      results.roundTrips = await measureRoundTrips(service);
    }
    const floor = has('latency') || has('throughput') ? await captureFloor(service, subject) : undefined;
    if (has('latency')) {
      progress(`2 latency: ${config.samples} samples each of floor, handler and HTTP, interleaved`);
      const http = httpClient(server!.baseUrl);
      results.latency = await measureLatency(service, floor!, subject, http, { samples: config.samples, warmup: config.warmup });
      http.close();
    }
    if (has('throughput')) {
      progress(`3 throughput at concurrency ${config.concurrency.join(', ')}, ${config.legSeconds} s legs (floor, SDK floor, HTTP, HTTP, SDK floor, floor), each from its own load process`);
      results.throughput = await measureThroughput(floor!, { baseUrl: server!.baseUrl, ...subject }, {
        levels: config.concurrency,
        legSeconds: config.legSeconds,
        pids: { server: server!.pid, dynamodb: dynamo.process.pid, ...(proxy && { proxy: proxy.pid }) },
      });
    }
    await server?.stop();
    server = undefined;
    if (has('coldstart')) {
      // A cold function meets a warm database in AWS. Run alone, this section would otherwise time
      // DynamoDB Local's own JIT warming up on the first requests it has ever served.
      if (!has('latency') && !has('throughput')) {
        progress('5 cold start: warming DynamoDB Local up with 2,000 leads (sections 2 and 3 did not run)');
        await warmDatabase(service, subject, 2_000);
      }
      progress(`5 cold start: bundling, then ${config.coldRuns} fresh processes per subject`);
      results.coldStart = await measureColdStart({ dynamodbEndpoint: databaseEndpoint, tables: service.tables, ...subject }, { runs: config.coldRuns, compare: config.coldCompare });
    }
    if (has('scale')) {
      await proxy?.stop();
      proxy = undefined;
      // A fresh DynamoDB Local: the earlier sections' tables and streams slow its bulk writes down.
      await dynamo.stop();
      dynamo = await startDynamoDbLocal();
      progress(`4 scale: ${config.preload} leads in one project and ${config.preload} over ${config.projects} projects, on a fresh DynamoDB Local`);
      results.scale = await measureScale(dynamo.endpoint, {
        preload: config.preload,
        projects: config.projects,
        samples: config.scaleSamples,
        warmup: Math.min(config.warmup, 30),
        onProgress: progress,
      });
    }
  } finally {
    await stopAll();
  }

  const rows = rowsOf(results);
  const seconds = Number(((Date.now() - startedAt.getTime()) / 1000).toFixed(1));
  const output = path.resolve(repositoryRoot, config.output);
  await mkdir(path.dirname(output), { recursive: true });
  await writeFile(
    output,
    `${JSON.stringify({ startedAt: startedAt.toISOString(), seconds, machine: { ...machineInfo, loadAverageAtEnd: os.loadavg().map((l) => Number(l.toFixed(2))) }, httpServer: httpServerKind, config, rows, results }, null, 2)}\n`,
  );
  process.stdout.write(`\n${formatTable(rows)}\n\n`);
  if (process.argv.includes('--markdown')) process.stdout.write(`${markdownTable(rows)}\n\n`);
  const missed = rows.filter((r) => r.met === false);
  process.stdout.write(
    `${rows.filter((r) => r.met).length} targets met, ${missed.length} missed${missed.length ? `: ${missed.map((r) => r.measure).join('; ')}` : ''}. ` +
      `${seconds} s on ${machineInfo.cores} x ${machineInfo.cpu}, load ${machineInfo.loadAverageAtStart.join(' ')}. Written to ${path.relative(process.cwd(), output)}\n`,
  );
};

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
