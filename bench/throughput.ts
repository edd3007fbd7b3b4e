/**
 * Section 3: leads per second through the local HTTP server against the floor's transactions per
 * second, at the same number of connections. Both legs are driven alike, from a separate process
 * (bench/load.ts) running the same POST loop: the floor posts the captured TransactWriteItems' wire
 * bytes straight to DynamoDB, the HTTP leg posts a lead to the server, so the load generator costs
 * both the same and everything the service does (its SDK's marshalling, signing and HTTP included) is
 * on the service's side of the ratio, as a sender sees it. A third leg sends the floor through a bare
 * SDK client (issue 5's floor), to show the SDK's share. Each level runs floor, SDK, HTTP, HTTP, SDK,
 * floor, so a drift in the machine's load falls on all alike. The CPU of every process (load
 * generator, server, DynamoDB Local, the counting proxy if any) is read for each measured leg.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { cpuMeter } from './cpu.ts';
import type { Floor, FloorLoad } from './floor.ts';
import type { HttpLoad, LoadResult } from './load.ts';
import { ratio, round } from './stats.ts';

export interface ThroughputLevel {
  readonly concurrency: number;
  readonly floorPerSecond: number;
  readonly httpPerSecond: number;
  readonly httpOverFloor: number;
  readonly floorErrors: number;
  readonly httpErrors: number;
  readonly floorP50Ms: number;
  readonly httpP50Ms: number;
  readonly httpP99Ms: number;
  /** CPU ms per lead (or per floor transaction) of each process, and how busy the machine was. */
  readonly floorCpuMsPerRequest: Record<string, number>;
  readonly httpCpuMsPerLead: Record<string, number>;
  /** The floor sent through a bare SDK client instead (issue 5's floor, for comparison). */
  readonly sdkFloorPerSecond: number;
  readonly sdkFloorP50Ms: number;
  readonly sdkFloorCpuMsPerRequest: Record<string, number>;
  readonly machineBusyFloor: number;
  readonly machineBusyHttp: number;
}

interface Leg extends LoadResult {
  readonly cpu: { byProcess: Record<string, number>; machineBusy: number };
}

const LOAD_SCRIPT = path.join(import.meta.dirname, 'load.ts');
/** Each load process numbers its mobiles from its own range, above the bench process's own. */
const MOBILES_PER_LEG = 5_000_000;
let legsStarted = 0;

/** One leg: a load process warms up, then runs on the bench's word while the CPU meters read. */
const leg = (mode: 'floor' | 'sdk' | 'http', env: Record<string, string>, concurrency: number, seconds: number, pids: Record<string, number | undefined>): Promise<Leg> =>
  new Promise((resolve, reject) => {
    const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [LOAD_SCRIPT, mode, String(concurrency), String(seconds)], { env: { ...inherited, ...env, BENCH_MOBILE_FIRST: String(100_000_000 + MOBILES_PER_LEG * legsStarted++) }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let spent: (() => { byProcess: Record<string, number>; machineBusy: number }) | undefined;
    child.stderr.on('data', (chunk: Buffer) => void (err = (err + chunk.toString()).slice(-4000)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!spent && out.includes('READY\n')) {
        spent = cpuMeter(pids);
        child.stdin.write('go\n');
      }
      const line = out.split('\n').find((l) => l.startsWith('LOAD ') && out.endsWith('\n'));
      if (line && spent) {
        const cpu = spent();
        const result = JSON.parse(line.slice('LOAD '.length)) as LoadResult;
        cpu.byProcess.load = Math.round(result.cpuMs ?? Number.NaN);
        delete cpu.byProcess.bench;
        spent = () => cpu;
        resolve({ ...result, cpu });
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!out.includes('LOAD ')) reject(new Error(`load generator (${mode}) failed (${code}): ${err}`));
    });
  });

export const measureThroughput = async (
  floor: Floor,
  http: HttpLoad,
  { levels, legSeconds, pids = {} }: { levels: readonly number[]; legSeconds: number; pids?: Record<string, number | undefined> },
): Promise<ThroughputLevel[]> => {
  const floorEnv = { BENCH_LOAD_FLOOR: JSON.stringify(floor.load satisfies FloorLoad) };
  const httpEnv = { BENCH_LOAD_HTTP: JSON.stringify(http) };
  await leg('http', httpEnv, Math.max(...levels), 1, pids); // warm the server's sockets and JIT
  const results: ThroughputLevel[] = [];
  for (const concurrency of levels) {
    const legs = { floor: [] as Leg[], sdk: [] as Leg[], http: [] as Leg[] };
    for (const kind of ['floor', 'sdk', 'http', 'http', 'sdk', 'floor'] as const) {
      legs[kind].push(await leg(kind, kind === 'http' ? httpEnv : floorEnv, concurrency, legSeconds, pids));
    }
    const rate = (list: Leg[]) => list.reduce((sum, l) => sum + l.ok, 0) / list.reduce((sum, l) => sum + l.seconds, 0);
    const perRequest = (list: Leg[]) => {
      const ok = list.reduce((sum, l) => sum + l.ok, 0);
      const out: Record<string, number> = {};
      for (const l of list) for (const [name, ms] of Object.entries(l.cpu.byProcess)) out[name] = (out[name] ?? 0) + ms;
      const total = Object.values(out).reduce((sum, ms) => sum + ms, 0);
      return Object.fromEntries(Object.entries({ ...out, total }).map(([name, ms]) => [name, round(ms / ok, 2)]));
    };
    const busy = (list: Leg[]) => round(list.reduce((sum, l) => sum + l.cpu.machineBusy, 0) / list.length, 2);
    const mid = (list: Leg[], key: 'p50' | 'p99') => round(list.reduce((sum, l) => sum + l[key], 0) / list.length, 2);
    const floorPerSecond = round(rate(legs.floor), 1);
    const httpPerSecond = round(rate(legs.http), 1);
    results.push({
      concurrency,
      floorPerSecond,
      httpPerSecond,
      httpOverFloor: ratio(httpPerSecond, floorPerSecond),
      floorErrors: legs.floor.reduce((sum, l) => sum + l.errors, 0),
      httpErrors: legs.http.reduce((sum, l) => sum + l.errors, 0),
      floorP50Ms: mid(legs.floor, 'p50'),
      httpP50Ms: mid(legs.http, 'p50'),
      httpP99Ms: Math.max(...legs.http.map((l) => l.p99)),
      floorCpuMsPerRequest: perRequest(legs.floor),
      httpCpuMsPerLead: perRequest(legs.http),
      machineBusyFloor: busy(legs.floor),
      machineBusyHttp: busy(legs.http),
      sdkFloorPerSecond: round(rate(legs.sdk), 1),
      sdkFloorP50Ms: mid(legs.sdk, 'p50'),
      sdkFloorCpuMsPerRequest: perRequest(legs.sdk),
    });
  }
  return results;
};
