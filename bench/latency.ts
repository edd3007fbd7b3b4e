/**
 * Section 2: one new lead, three ways, interleaved so they share the machine's noise: the floor (a
 * bare TransactWriteItems of the same items), the website handler in-process (warm container), and
 * the same request over HTTP through `npm start`'s server. The order rotates every round.
 */
import type { Floor, Subject } from './floor.ts';
import type { httpClient } from './http-client.ts';
import { floorLeadBody, invoke, pathOf, type BenchService } from './service.ts';
import { ratio, summarize, timed, type Summary } from './stats.ts';

export interface LatencyResult {
  readonly floor: Summary;
  readonly handler: Summary;
  readonly http: Summary;
  readonly handlerOverFloorP50: number;
  readonly handlerOverFloorP99: number;
  readonly httpOverFloorP50: number;
  readonly httpOverFloorP99: number;
  readonly errors: number;
}

export const measureLatency = async (
  service: BenchService,
  floor: Floor,
  subject: Subject,
  http: ReturnType<typeof httpClient>,
  { samples, warmup }: { samples: number; warmup: number },
): Promise<LatencyResult> => {
  const handler = service.handler('website', service.newRuntime());
  const headers = { 'content-type': 'application/json', 'x-api-key': subject.apiKey };
  const body = () => floorLeadBody(subject.projectID, subject.campaignID);
  let errors = 0;
  const check = (status: number) => void (status === 200 || (errors += 1));

  const runs: Record<'floor' | 'handler' | 'http', () => Promise<void>> = {
    floor: () => floor.send(),
    handler: async () => check((await invoke(handler, 'website', subject.apiKey, body())).status),
    http: async () => check((await http.post(pathOf('website'), headers, JSON.stringify(body()))).status),
  };
  const names = Object.keys(runs) as (keyof typeof runs)[];
  const samplesOf: Record<keyof typeof runs, number[]> = { floor: [], handler: [], http: [] };
  for (let round = 0; round < warmup + samples; round += 1) {
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(round + k) % names.length]!;
      const [ms] = await timed(runs[name]);
      if (round >= warmup) samplesOf[name].push(ms);
    }
  }
  const [f, h, w] = [summarize(samplesOf.floor), summarize(samplesOf.handler), summarize(samplesOf.http)];
  return {
    floor: f,
    handler: h,
    http: w,
    handlerOverFloorP50: ratio(h.p50, f.p50),
    handlerOverFloorP99: ratio(h.p99, f.p99),
    httpOverFloorP50: ratio(w.p50, f.p50),
    httpOverFloorP99: ratio(w.p99, f.p99),
    errors,
  };
};
