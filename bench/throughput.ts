/**
 * Section 3: leads per second through the local HTTP server, driven by autocannon at a fixed number
 * of connections, against the floor's transactions per second at the same concurrency. Each level
 * runs floor, HTTP, HTTP, floor (ABBA) so a drift in the machine's load falls on both alike.
 */
import autocannon from 'autocannon';
import { cpuMeter } from './cpu.ts';
import type { Floor, Subject } from './floor.ts';
import { leadBody, pathOf } from './service.ts';
import { ratio, round } from './stats.ts';

export interface ThroughputLevel {
  readonly concurrency: number;
  readonly floorPerSecond: number;
  readonly httpPerSecond: number;
  readonly httpOverFloor: number;
  readonly floorErrors: number;
  readonly httpErrors: number;
  readonly httpP99Ms: number;
  /** CPU ms per lead (or per floor transaction) of each process, and how busy the machine was. */
  readonly floorCpuMsPerRequest: Record<string, number>;
  readonly httpCpuMsPerLead: Record<string, number>;
  readonly machineBusyFloor: number;
  readonly machineBusyHttp: number;
}

interface Leg {
  readonly ok: number;
  readonly errors: number;
  readonly seconds: number;
  readonly p99?: number;
  readonly cpu?: { byProcess: Record<string, number>; machineBusy: number };
}

const floorLeg = async (floor: Floor, concurrency: number, seconds: number): Promise<Leg> => {
  let ok = 0;
  let errors = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      try {
        await floor.send();
        ok += 1;
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ok, errors, seconds: (performance.now() - start) / 1000 };
};

const httpLeg = async (baseUrl: string, subject: Subject, concurrency: number, seconds: number): Promise<Leg> => {
  const result = await autocannon({
    url: baseUrl,
    connections: concurrency,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: pathOf('website'),
        headers: { 'content-type': 'application/json', 'x-api-key': subject.apiKey },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(leadBody('website', subject.projectID, subject.campaignID)) }),
      },
    ],
  });
  return { ok: result['2xx'], errors: result.non2xx + result.errors + result.timeouts, seconds: result.duration, p99: result.latency.p99 };
};

export const measureThroughput = async (
  floor: Floor,
  baseUrl: string,
  subject: Subject,
  { levels, legSeconds, pids = {} }: { levels: readonly number[]; legSeconds: number; pids?: Record<string, number | undefined> },
): Promise<ThroughputLevel[]> => {
  await httpLeg(baseUrl, subject, Math.max(...levels), 1); // warm the server's sockets and JIT
  const results: ThroughputLevel[] = [];
  for (const concurrency of levels) {
    const legs = { floor: [] as Leg[], http: [] as Leg[] };
    for (const kind of ['floor', 'http', 'http', 'floor'] as const) {
      const spent = cpuMeter(pids);
      const leg = kind === 'floor' ? await floorLeg(floor, concurrency, legSeconds) : await httpLeg(baseUrl, subject, concurrency, legSeconds);
      legs[kind].push({ ...leg, cpu: spent() });
    }
    const rate = (list: Leg[]) => list.reduce((sum, leg) => sum + leg.ok, 0) / list.reduce((sum, leg) => sum + leg.seconds, 0);
    const perRequest = (list: Leg[]) => {
      const ok = list.reduce((sum, leg) => sum + leg.ok, 0);
      const out: Record<string, number> = {};
      for (const leg of list) for (const [name, ms] of Object.entries(leg.cpu!.byProcess)) out[name] = (out[name] ?? 0) + ms;
      const total = Object.values(out).reduce((sum, ms) => sum + ms, 0);
      return Object.fromEntries(Object.entries({ ...out, total }).map(([name, ms]) => [name, round(ms / ok, 2)]));
    };
    const busy = (list: Leg[]) => round(list.reduce((sum, leg) => sum + leg.cpu!.machineBusy, 0) / list.length, 2);
    const floorPerSecond = round(rate(legs.floor), 1);
    const httpPerSecond = round(rate(legs.http), 1);
    results.push({
      concurrency,
      floorPerSecond,
      httpPerSecond,
      httpOverFloor: ratio(httpPerSecond, floorPerSecond),
      floorErrors: legs.floor.reduce((sum, leg) => sum + leg.errors, 0),
      httpErrors: legs.http.reduce((sum, leg) => sum + leg.errors, 0),
      httpP99Ms: Math.max(...legs.http.map((leg) => leg.p99 ?? 0)),
      floorCpuMsPerRequest: perRequest(legs.floor),
      httpCpuMsPerLead: perRequest(legs.http),
      machineBusyFloor: busy(legs.floor),
      machineBusyHttp: busy(legs.http),
    });
  }
  return results;
};
