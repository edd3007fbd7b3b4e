/**
 * Section 7 (issue 43): a pull of a window of 1,000 99acres enquiries against DynamoDB Local, beside a
 * warm webhook lead, in one run. The portal's answer is built once and handed to the reader without a
 * socket (its XML is still parsed, as the pull function parses it): what is measured is the pull's own
 * work and its DynamoDB requests, counted by an SDK middleware on the client both use.
 * - Writes per new enquiry against a warm webhook lead's (one transaction each is the goal).
 * - Re-pulling the same window, every enquiry stored: writes per enquiry (0), and reads per 100 enquiries
 *   (the claims read in batches of 100: at most 1). The login's own item is read and updated a few times
 *   per pull whatever its size (lease, watermark, release): counted apart.
 * - CPU per new enquiry against a warm webhook lead's handler CPU (`process.cpuUsage()`), the two
 *   alternating in blocks over several rounds, as section 6 does, since one call's CPU drifts on a
 *   shared machine. Goal: within 1.5x.
 */
import { DynamoDbPortalLoginStore } from '../shared/dynamodb/portal-logins.ts';
import { createDocumentClient } from '../shared/dynamodb/client.ts';
import { connectPortalLogin } from '../shared/pulled/logins.ts';
import { pullLogin, type PullSummary } from '../shared/pulled/pull.ts';
import { pullRuntime } from '../shared/pulled/runtime.ts';
import type { PortalHttp } from '../shared/pulled/types.ts';
import { portals } from '../shared/portals/registry.ts';
import { portalCredentialScope } from '../shared/pulled/logins.ts';
import { localTokenCipher } from '../shared/sealed-secrets.ts';
import { istText, ninetyNineAcresXml, type NinetyNineAcresEnquiry } from '../test/support/fake-portals.ts';
import { invoke, leadBody, nextMobile, type BenchService } from './service.ts';
import { round } from './stats.ts';

export const PULL_CPU_GOAL = 1.5;
/** Commands by the name the client's middleware sees (the document client's or the plain client's). */
const WRITES = new Set(['TransactWriteItemsCommand', 'TransactWriteCommand', 'PutItemCommand', 'PutCommand', 'BatchWriteItemCommand', 'BatchWriteCommand', 'DeleteItemCommand', 'DeleteCommand']);
/** The login's own item: its lease, watermark and release, read and updated a few times a pull. */
const LOGIN_ITEM = new Set(['UpdateCommand', 'UpdateItemCommand', 'GetCommand', 'GetItemCommand']);

export interface PullBenchResult {
  readonly enquiries: number;
  /** A new window: its requests by command, and the writes per enquiry. */
  readonly firstPull: { readonly commands: Record<string, number>; readonly writesPerEnquiry: number; readonly summary: PullSummary };
  /** One warm webhook lead's writes (the floor). */
  readonly webhookWrites: number;
  /** The same window again. */
  readonly repull: { readonly commands: Record<string, number>; readonly writesPerEnquiry: number; readonly readsPer100: number; readonly loginItemRequests: number; readonly summary: PullSummary };
  readonly cpu: { readonly pullMsPerEnquiry: number; readonly webhookMsPerLead: number; readonly ratio: number; readonly rounds: number };
}

const tally = (commands: readonly string[]) => commands.reduce<Record<string, number>>((all, name) => ({ ...all, [name]: (all[name] ?? 0) + 1 }), {});
const cpuMs = (work: () => Promise<unknown>) => async (): Promise<number> => {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};

export const measurePull = async (service: BenchService, { enquiries = 1_000, rounds = 4 }: { enquiries?: number; rounds?: number } = {}): Promise<PullBenchResult> => {
  const apiKey = await service.seedAccount({ id: 'acc-bench-pull', projects: { 'PRJ-1': ['CMP-1'] } });
  const now = new Date();
  let answer = '';
  /** The re-pull: the portal answers the whole window again (a re-sent window, or one pulled again after a restore). */
  let again = false;
  // The portal without a socket: the answer of the window, built before the clock starts.
  // Only the slice that holds the window's hour gets it: 99acres answers by the dates asked.
  const startOf = (body: string | undefined) => /<start_date>([^<]+)<\/start_date>/.exec(decodeURIComponent((body ?? '').replace(/\+/g, ' ')))?.[1];
  const http: PortalHttp = {
    send: async ({ body }) => {
      const start = Date.parse(`${startOf(body)?.replace(' ', 'T')}+05:30`);
      return { status: 200, contentType: 'text/xml', body: again || start <= now.getTime() - 3_600_000 ? answer : ninetyNineAcresXml([]) };
    },
  };
  const db = createDocumentClient({ client: service.client });
  const cipher = localTokenCipher(undefined, portalCredentialScope);
  const runtime = pullRuntime({
    db,
    tables: service.tables,
    cipher,
    events: { publish: async () => undefined },
    portals,
    baseUrls: new Map([['99acres', 'http://portal.invalid/']]),
    settings: { overlapMinutes: 15, failingMinutes: 60 },
    http,
    log: () => undefined,
  });
  const logins = new DynamoDbPortalLoginStore(db, service.tables.config);
  let loginCount = 0;
  const newLoginWith = async (count: number) => {
    const login = `bench-broker-${++loginCount}`;
    await connectPortalLogin({ logins, accounts: service.repository.accounts, cipher, portals: portals.map(({ source }) => source), now: () => new Date(now.getTime() - 60_000) }, {
      accountId: 'acc-bench-pull', portal: '99acres', login, projectId: 'PRJ-1', campaignId: 'CMP-1', credential: 'bench-password',
    });
    const window: NinetyNineAcresEnquiry[] = Array.from({ length: count }, (_, i) => ({
      id: `B${loginCount}-${i}`,
      receivedOn: istText(new Date(now.getTime() - 3_600_000 + i * 1_000)),
      name: `Buyer ${i}`,
      phone: `+91-${nextMobile()}`,
      info: '2 BHK near the metro',
      projectId: '88231',
      projectName: 'Skyline Residency',
      city: 'Pune',
    }));
    answer = ninetyNineAcresXml(window);
    return login;
  };
  const pull = async (login: string) => {
    const outcome = await pullLogin(runtime, '99acres', login);
    if (typeof outcome === 'string') throw new Error(`the bench's pull was refused: ${outcome}`);
    return outcome;
  };
  const website = service.handler('website', service.newRuntime());
  const webhookLead = async () => {
    const { status } = await invoke(website, 'website', apiKey, leadBody('website', 'PRJ-1', 'CMP-1'));
    if (status !== 200) throw new Error(`the bench's webhook lead answered ${status}`);
  };
  await webhookLead(); // the container warm: its key and account cached

  // Writes: a warm webhook lead, a new window, the window again.
  service.roundTrips.reset();
  await webhookLead();
  const webhookWrites = service.roundTrips.commands().filter((name) => WRITES.has(name)).length;

  const login = await newLoginWith(enquiries);
  service.roundTrips.reset();
  const firstSummary = await pull(login);
  const first = service.roundTrips.commands();
  if (firstSummary.stored !== enquiries) throw new Error(`the first pull stored ${firstSummary.stored} of ${enquiries}`);

  again = true;
  service.roundTrips.reset();
  const repullSummary = await pull(login);
  const repulled = service.roundTrips.commands();
  again = false;
  if (repullSummary.already !== enquiries) throw new Error(`the re-pull found ${repullSummary.already} of ${enquiries} already stored`);
  const reads = repulled.filter((name) => !WRITES.has(name) && !LOGIN_ITEM.has(name));

  // CPU: new windows and webhook leads, alternating, each block of the same number of leads.
  const block = Math.max(50, Math.round(enquiries / rounds));
  let pullMs = 0;
  let webhookMs = 0;
  for (let r = 0; r < rounds; r += 1) {
    const next = await newLoginWith(block);
    const timePull = cpuMs(() => pull(next));
    const timeWebhook = cpuMs(async () => {
      for (let i = 0; i < block; i += 1) await webhookLead();
    });
    if (r % 2 === 0) {
      pullMs += await timePull();
      webhookMs += await timeWebhook();
    } else {
      webhookMs += await timeWebhook();
      pullMs += await timePull();
    }
  }
  const pullMsPerEnquiry = pullMs / (block * rounds);
  const webhookMsPerLead = webhookMs / (block * rounds);

  return {
    enquiries,
    firstPull: { commands: tally(first), writesPerEnquiry: first.filter((name) => WRITES.has(name)).length / enquiries, summary: firstSummary },
    webhookWrites,
    repull: {
      commands: tally(repulled),
      writesPerEnquiry: repulled.filter((name) => WRITES.has(name)).length / enquiries,
      readsPer100: (reads.length / enquiries) * 100,
      loginItemRequests: repulled.filter((name) => LOGIN_ITEM.has(name)).length,
      summary: repullSummary,
    },
    cpu: { pullMsPerEnquiry: round(pullMsPerEnquiry, 3), webhookMsPerLead: round(webhookMsPerLead, 3), ratio: round(pullMsPerEnquiry / webhookMsPerLead, 2), rounds },
  };
};
