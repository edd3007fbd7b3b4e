/**
 * The load generator of section 3, run as its own process (`node bench/load.ts`) so neither leg's
 * sender shares an event loop with the bench's bookkeeping, and so its CPU is read from /proc like the
 * server's and DynamoDB Local's. Both legs are driven by the same kind of client: N keep-alive loops,
 * each sending its next request when the previous one is answered.
 *
 * - `floor`: the captured TransactWriteItems (BENCH_LOAD_FLOOR: the marshalled input's JSON, its lead id
 *   and mobile) posted to DynamoDB's endpoint as its wire body, by the same POST loop as `http`: the
 *   load generator costs both legs the same, and the SDK's work is counted where the service pays it.
 * - `sdk`: the same transaction through a bare client built by createDynamoDbClient (the service's
 *   settings): issue 5's floor, kept as a row to show what the SDK's own work costs.
 * - `http`: a new lead per request over node:http (keep-alive agent, one socket per loop) to the local
 *   server, as a sender's backend would post it.
 *
 * Prints one `LOAD {json}` line: requests answered, errors, seconds, and p50/p99 of the answers.
 */
import { freshFloorBody, sdkFloorSender, type FloorLoad } from './floor.ts';
import { httpClient } from './http-client.ts';
import { floorLeadBody, pathOf, startMobilesAt } from './service.ts';
import { percentile, round } from './stats.ts';

export interface LoadResult {
  readonly ok: number;
  readonly errors: number;
  readonly seconds: number;
  readonly p50: number;
  readonly p99: number;
  /** CPU ms of the load generator's process during the run (reported by the child only). */
  readonly cpuMs?: number;
}

export interface HttpLoad {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly projectID: string;
  readonly campaignID: string;
}

/** One keep-alive POST client, the same code for both legs: only the URL, headers and body differ. */
const poster = (baseUrl: string, path: string, connections: number, headers: Record<string, string>, body: () => string) => {
  const client = httpClient(baseUrl, { maxSockets: connections });
  return async (): Promise<boolean> => (await client.post(path, headers, body())).status === 200;
};

/**
 * The floor as DynamoDB sees it: the same bytes the SDK would send, posted by the same client code as
 * the HTTP leg's. DynamoDB Local checks that a request is signed, not the signature.
 */
const wireFloorSender = (floor: FloorLoad, connections: number) =>
  poster(
    floor.endpoint,
    '/',
    connections,
    {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.TransactWriteItems',
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/local/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0',
      'x-amz-date': '20260101T000000Z',
    },
    freshFloorBody(floor),
  );

const httpSender = ({ baseUrl, apiKey, projectID, campaignID }: HttpLoad, connections: number) =>
  poster(
    baseUrl,
    pathOf('website'),
    connections,
    { 'content-type': 'application/json', 'x-api-key': apiKey },
    () => JSON.stringify(floorLeadBody(projectID, campaignID)),
  );

/** A sender that throws on failure, as one that answers whether it succeeded. */
const alwaysTrue = (send: () => Promise<void>) => async (): Promise<boolean> => {
  await send();
  return true;
};

export const runLoad = async (send: () => Promise<boolean>, connections: number, seconds: number): Promise<LoadResult> => {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      try {
        if (await send()) latencies.push(performance.now() - sent);
        else errors += 1;
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return { ok: latencies.length, errors, seconds: (performance.now() - start) / 1000, p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) };
};

if (import.meta.main) {
  const [mode, connections, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
  startMobilesAt(Number(process.env.BENCH_MOBILE_FIRST ?? 0)); // every lead a new mobile, across processes
  const floor = () => JSON.parse(process.env.BENCH_LOAD_FLOOR!) as FloorLoad;
  const send =
    mode === 'floor'
      ? wireFloorSender(floor(), connections)
      : mode === 'sdk'
        ? alwaysTrue(sdkFloorSender(floor()))
        : mode === 'http'
          ? httpSender(JSON.parse(process.env.BENCH_LOAD_HTTP!) as HttpLoad, connections)
          : undefined;
  if (!send || !(connections > 0) || !(seconds > 0)) throw new Error('usage: node bench/load.ts floor|sdk|http <connections> <seconds>');
  // A short warm-up (JIT, sockets, the SDK's lazy code), not counted; then the bench starts its CPU
  // meters and says go (a line on stdin), and this process reports its own CPU of the measured run.
  await runLoad(send, connections, 0.5);
  process.stdout.write('READY\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const before = process.cpuUsage();
  const result = await runLoad(send, connections, seconds);
  const cpu = process.cpuUsage(before);
  process.stdout.write(`LOAD ${JSON.stringify({ ...result, cpuMs: round((cpu.user + cpu.system) / 1000, 1) })}\n`);
  process.exit(0);
}
