/** The bench's table: one row per figure, with its floor, the ratio, the target and whether it is met. */
import { SDK_ALONE, type ColdStartResult } from './cold-start.ts';
import { HANDLER_CPU_GOAL, type HandlerCpuResult } from './handler-cpu.ts';
import type { LatencyResult } from './latency.ts';
import { PULL_CPU_GOAL, type PullBenchResult } from './pull.ts';
import type { RoundTripCase } from './round-trips.ts';
import type { ScaleResult } from './scale.ts';
import type { ThroughputLevel } from './throughput.ts';
import type { WatchWritesCase } from './watch-writes.ts';

export interface Row {
  readonly section: string;
  readonly measure: string;
  readonly value: string;
  readonly floor: string;
  readonly ratio: string;
  readonly target: string;
  /** undefined: informative, no target. */
  readonly met?: boolean;
}

export interface Results {
  roundTrips?: RoundTripCase[];
  latency?: LatencyResult;
  throughput?: ThroughputLevel[];
  scale?: ScaleResult;
  coldStart?: ColdStartResult;
  handlerCpu?: HandlerCpuResult;
  pull?: PullBenchResult;
  watchWrites?: WatchWritesCase[];
}

/**
 * Issue 44: the service's own share of a cold start, the goal since docs/decisions/0012: a function's
 * import and first request within 1.15x of the SDK alone making the same three round trips, in the same
 * run. (Issues 20 and 36 held it against importing the client from node_modules, 1.3x then 1.2x: that
 * ratio is printed still, with no target, as it mostly measures the SDK's own cold start.)
 */
export const COLD_START_OVER_SDK_GOAL = 1.15;
/**
 * Minified size of a function on the lead request path (test/cdk/bundling.test.ts holds the stack to it).
 * 264 KB since section 14 of the contract (issue 25 part A: the key read before a challenge, quarantine
 * answers kept under the request's key, the challenge's hostname and action): +3.1 KB measured on the
 * website bundle (265,229 to 268,379 bytes), past 260 KB's last 1 KB of room. 268 KB since the rest of
 * section 14 (issue 25 part B: one retry path for contended writes, a repeat settled after an erasure,
 * bounded identifiers): the website bundle measured 270,661 bytes (264.3 KB) with both parts.
 */
export const LEAD_BUNDLE_BUDGET_KB = 268;
export const throughputGoal = (concurrency: number): number => (concurrency >= 32 ? 0.9 : 0.8);

const ms = (x: number) => `${x.toFixed(2)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const x = (r: number) => `${r.toFixed(2)}x`;

export const rowsOf = (results: Results): Row[] => {
  const rows: Row[] = [];
  const add = (row: Row) => rows.push(row);

  for (const c of results.roundTrips ?? []) {
    add({
      section: '1 round trips',
      measure: `${c.case} (${c.status})`,
      value: `${c.roundTrips}: ${c.commands.map((name) => name.replace(/Command$/, '')).join(' + ')}`,
      floor: '',
      ratio: '',
      target: `${c.targetKind === 'max' ? '<= ' : ''}${c.target}, answers ${c.expectedStatus}`,
      met: c.met,
    });
  }

  const l = results.latency;
  if (l) {
    const s = '2 latency';
    add({ section: s, measure: 'floor: bare TransactWriteItems p50 / p99', value: `${ms(l.floor.p50)} / ${ms(l.floor.p99)}`, floor: '', ratio: '', target: '' });
    add({ section: s, measure: 'handler in-process, new lead p50', value: ms(l.handler.p50), floor: ms(l.floor.p50), ratio: x(l.handlerOverFloorP50), target: '<= 1.15x', met: l.handlerOverFloorP50 <= 1.15 });
    add({ section: s, measure: 'handler in-process, new lead p99', value: ms(l.handler.p99), floor: ms(l.floor.p99), ratio: x(l.handlerOverFloorP99), target: '' });
    add({ section: s, measure: 'HTTP (npm start), new lead p50', value: ms(l.http.p50), floor: ms(l.floor.p50), ratio: x(l.httpOverFloorP50), target: '' });
    add({ section: s, measure: 'HTTP (npm start), new lead p99', value: ms(l.http.p99), floor: ms(l.floor.p99), ratio: x(l.httpOverFloorP99), target: '' });
    add({ section: s, measure: `errors (${l.floor.n} samples each)`, value: String(l.errors), floor: '', ratio: '', target: '0', met: l.errors === 0 });
  }

  for (const t of results.throughput ?? []) {
    // Issue 20's goals: 0.8x at 8 connections, 0.9x at 32; other levels keep issue 5's 0.8x.
    const goal = throughputGoal(t.concurrency);
    add({
      section: '3 throughput',
      measure: `HTTP leads/s at concurrency ${t.concurrency} (p50 ${t.httpP50Ms} ms vs ${t.floorP50Ms} ms, p99 ${t.httpP99Ms} ms)`,
      value: `${t.httpPerSecond}/s, ${t.httpErrors} errors`,
      floor: `${t.floorPerSecond}/s, ${t.floorErrors} errors`,
      ratio: x(t.httpOverFloor),
      target: `>= ${goal}x, 0 errors`,
      met: t.httpOverFloor >= goal && t.httpErrors === 0,
    });
    const cpu = (c: Record<string, number>) => Object.entries(c).map(([name, ms]) => `${name} ${ms}`).join(', ');
    if (t.concurrency === 1) {
      // Issue 20's latency goal, from the same load process and POST loop for both (no bench bookkeeping in it).
      const r = t.httpP50Ms / t.floorP50Ms;
      add({ section: '3 throughput', measure: 'HTTP p50 / floor p50 at concurrency 1 (same POST loop, own process)', value: ms(t.httpP50Ms), floor: ms(t.floorP50Ms), ratio: x(r), target: '<= 1.3x', met: r <= 1.3 });
    }
    add({
      section: '3 throughput',
      measure: `floor through a bare SDK client at concurrency ${t.concurrency} (issue 5's floor; p50 ${t.sdkFloorP50Ms} ms)`,
      value: `${t.sdkFloorPerSecond}/s`,
      floor: `${t.floorPerSecond}/s`,
      ratio: x(t.sdkFloorPerSecond / t.floorPerSecond),
      target: '',
    });
    add({
      section: '3 throughput',
      measure: `CPU ms per lead at concurrency ${t.concurrency} (machine busy ${Math.round(t.machineBusyHttp * 100)}% / ${Math.round(t.machineBusyFloor * 100)}%)`,
      value: cpu(t.httpCpuMsPerLead),
      floor: cpu(t.floorCpuMsPerRequest),
      ratio: x(t.httpCpuMsPerLead.total! / t.floorCpuMsPerRequest.total!),
      target: '',
    });
    add({
      section: '3 throughput',
      measure: `CPU ms per transaction, floor through the SDK, at concurrency ${t.concurrency}`,
      value: cpu(t.sdkFloorCpuMsPerRequest),
      floor: cpu(t.floorCpuMsPerRequest),
      ratio: x(t.sdkFloorCpuMsPerRequest.total! / t.floorCpuMsPerRequest.total!),
      target: '',
    });
  }

  const sc = results.scale;
  if (sc) {
    const s = '4 scale';
    add({ section: s, measure: 'new lead p50, empty table (before the load)', value: ms(sc.emptyTable.p50), floor: '', ratio: '', target: '' });
    add({ section: s, measure: 'new lead p50, empty project (after the load)', value: ms(sc.emptyProject.p50), floor: ms(sc.emptyTable.p50), ratio: x(sc.emptyProjectAfterOverEmptyTable), target: '' });
    add({ section: s, measure: `new lead p50, project with ${sc.preloadPerLayout.toLocaleString('en')} leads`, value: ms(sc.hotProject.p50), floor: ms(sc.emptyProject.p50), ratio: x(sc.hotOverEmpty), target: '<= 1.1x', met: sc.hotOverEmpty <= 1.1 });
    add({
      section: s,
      measure: `new lead p50, ${sc.preloadPerLayout.toLocaleString('en')} leads over ${sc.spreadProjects.toLocaleString('en')} projects`,
      value: ms(sc.spreadProject.p50),
      floor: ms(sc.emptyProject.p50),
      ratio: x(sc.spreadOverEmpty),
      target: '<= 1.1x',
      met: sc.spreadOverEmpty <= 1.1,
    });
    add({ section: s, measure: 'preload (BatchWriteItem of repository items)', value: `${sc.preloadSeconds} s, ${sc.preloadItemsPerSecond} items/s`, floor: '', ratio: '', target: '' });
    add({ section: s, measure: 'errors', value: String(sc.errors), floor: '', ratio: '', target: '0', met: sc.errors === 0 });
  }

  const cs = results.coldStart;
  if (cs) {
    const s = '5 cold start';
    for (const b of cs.bundles) {
      add({
        section: s,
        measure: `${b.function} bundle, minified (gzipped)`,
        value: `${kb(b.minifiedBytes)} (${kb(b.gzippedBytes)})`,
        floor: '',
        ratio: '',
        target: b.informative ? '' : `<= ${LEAD_BUNDLE_BUDGET_KB} KB`,
        ...(!b.informative && { met: b.minifiedBytes <= LEAD_BUNDLE_BUDGET_KB * 1024 }),
      });
    }
    const floorRow = cs.rows.find((r) => r.subject === cs.floor)!;
    for (const r of cs.rows) {
      const isFunction = r.subject.includes('first request');
      const asDeployed = isFunction && !r.informative && !r.subject.includes('--enable-source-maps') && !r.subject.includes('before:');
      add({
        section: s,
        measure: `${r.subject}${r.statuses.length ? ` (${r.statuses.join('/')})` : ''}`,
        value:
          `${r.medianMs} ms: import ${r.medianImportMs}` +
          (r.medianFirstRequestMs === undefined ? '' : `, 1st request ${r.medianFirstRequestMs} (warm ${r.medianWarmRequestMs})`) +
          `; CPU ${r.medianCpuMs}`,
        floor: r === floorRow ? '' : `${floorRow.medianMs} ms`,
        ratio: r === floorRow ? '' : x(r.overFloor),
        target: '',
      });
    }
    // The goal (decision 0012): each function as deployed against the SDK alone, timed in the same rounds.
    const sdkAlone = cs.rows.find((r) => r.subject.startsWith(`${SDK_ALONE}:`));
    if (sdkAlone) {
      for (const r of cs.rows.filter((row) => row.subject.includes('first request') && !row.informative && !row.subject.includes('--enable-source-maps') && !row.subject.includes('before:'))) {
        const over = r.medianMs / sdkAlone.medianMs;
        add({
          section: s,
          measure: `${r.subject.replace(': import bundle + first request', '')}: cold start over the SDK alone`,
          value: `${r.medianMs} ms`,
          floor: `${sdkAlone.medianMs} ms`,
          ratio: x(over),
          target: `<= ${COLD_START_OVER_SDK_GOAL}x`,
          met: over <= COLD_START_OVER_SDK_GOAL && r.statuses.length > 0 && r.statuses.every((st) => st === 200),
        });
      }
    }
    // The same processes' CPU up to the answer: on a loaded machine a fresh process mostly waits for a
    // core, so the wall-time ratio above is the scheduler's; this one is the work (informative).
    for (const r of cs.rows.filter((row) => row !== floorRow && row.subject.includes('first request') && !row.subject.includes('--enable-source-maps') && !row.subject.includes('before:'))) {
      add({ section: s, measure: `${r.subject.replace(': import bundle + first request', '')}: CPU of import + first request`, value: `${r.medianCpuMs} ms`, floor: `${floorRow.medianCpuMs} ms`, ratio: x(r.medianCpuMs / floorRow.medianCpuMs), target: '' });
    }
  }
  const c = results.handlerCpu;
  if (c) {
    const s = '6 handler CPU';
    const us = (v: number) => `${v.toFixed(1)} µs`;
    add({ section: s, measure: 'bare SDK send of the same TransactWriteItems (default DynamoDBClient, stubbed network), CPU per send', value: us(c.bareUs), floor: '', ratio: '', target: '' });
    add({
      section: s,
      measure: `handler in-process, new lead, CPU per lead (${c.rounds} rounds of ${c.leadsPerRound}, per-round ratio quartiles ${c.roundRatios[0]} to ${c.roundRatios[1]})`,
      value: us(c.handlerUs),
      floor: us(c.bareUs),
      ratio: x(c.handlerOverBare),
      target: `<= ${HANDLER_CPU_GOAL}x, 0 errors`,
      met: c.handlerOverBare <= HANDLER_CPU_GOAL && c.errors === 0,
    });
    add({ section: s, measure: 'the same bare send through the service\'s client (createDynamoDbClient)', value: us(c.serviceClientUs), floor: us(c.bareUs), ratio: x(c.serviceClientOverBare), target: '' });
    add({ section: s, measure: 'handler against that send through the service\'s client', value: us(c.handlerUs), floor: us(c.serviceClientUs), ratio: x(c.handlerUs / c.serviceClientUs), target: '' });
  }
  const p = results.pull;
  if (p) {
    const s = '7 pull';
    const commands = (all: Record<string, number>) => Object.entries(all).map(([name, n]) => `${n} ${name.replace(/Command$/, '')}`).join(' + ');
    add({
      section: s,
      measure: `a new window of ${p.enquiries} 99acres enquiries: writes per enquiry (${commands(p.firstPull.commands)})`,
      value: p.firstPull.writesPerEnquiry.toFixed(3),
      floor: `${p.webhookWrites} (a warm webhook lead)`,
      ratio: x(p.firstPull.writesPerEnquiry / p.webhookWrites),
      target: '<= 1.00x',
      met: p.firstPull.writesPerEnquiry <= p.webhookWrites,
    });
    add({ section: s, measure: `the same window again, all stored (${commands(p.repull.commands)}): writes per enquiry`, value: p.repull.writesPerEnquiry.toFixed(3), floor: '', ratio: '', target: '0', met: p.repull.writesPerEnquiry === 0 });
    add({ section: s, measure: 'the same window again: reads per 100 enquiries (the claims, read in batches)', value: p.repull.readsPer100.toFixed(2), floor: '', ratio: '', target: '<= 1', met: p.repull.readsPer100 <= 1 });
    add({ section: s, measure: "the same window again: the login's own item (lease, watermark, release), per pull", value: String(p.repull.loginItemRequests), floor: '', ratio: '', target: '' });
    add({
      section: s,
      measure: `CPU per new enquiry pulled (its XML parsed, no socket) against a warm webhook lead's handler, ${p.cpu.rounds} alternating rounds`,
      value: `${p.cpu.pullMsPerEnquiry} ms`,
      floor: `${p.cpu.webhookMsPerLead} ms`,
      ratio: x(p.cpu.ratio),
      target: `<= ${PULL_CPU_GOAL}x`,
      met: p.cpu.ratio <= PULL_CPU_GOAL,
    });
  }
  for (const w of results.watchWrites ?? []) {
    add({
      section: '8 watch writes',
      measure: `quiet-source watch, writes per stored lead at ${w.leadsPerBatch} lead${w.leadsPerBatch === 1 ? '' : 's'} per stream batch (${w.writes} writes, ${w.writeUnits} write units for ${w.leads} leads; median gap exact: ${w.exactMedian ? 'yes' : 'NO'})`,
      value: w.writesPerLead.toFixed(3),
      floor: '',
      ratio: '',
      target: `<= ${Number(w.target.toFixed(3))}${w.leadsPerBatch === 1 ? ' (1 + a bucket per 48)' : ''}, exact median`,
      met: w.met,
    });
  }
  return rows;
};

export const formatTable = (rows: readonly Row[]): string => {
  const header: Row = { section: 'section', measure: 'measure', value: 'value', floor: 'floor', ratio: 'ratio', target: 'target', met: undefined };
  const cells = (r: Row, isHeader = false) => [r.section, r.measure, r.value, r.floor, r.ratio, r.target, isHeader ? 'met' : r.met === undefined ? '' : r.met ? 'yes' : 'NO'];
  const table = [cells(header, true), ...rows.map((r) => cells(r))];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ').trimEnd();
  return [line(table[0]!), widths.map((w) => '-'.repeat(w)).join('-|-'), ...table.slice(1).map(line)].join('\n');
};

/** The same rows as a Markdown table, for docs/performance.md. */
export const markdownTable = (rows: readonly Row[]): string => {
  const esc = (s: string) => s.replaceAll('|', '\\|');
  return [
    '| section | measure | value | floor | ratio | target | met |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${[r.section, r.measure, r.value, r.floor, r.ratio, r.target, r.met === undefined ? '' : r.met ? 'yes' : '**no**'].map(esc).join(' | ')} |`),
  ].join('\n');
};
