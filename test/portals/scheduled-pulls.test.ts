/**
 * The pull in AWS (lib/constructs/portal-pulls.ts), against DynamoDB Local and 99acres faked on its
 * wire: the schedule's handler queues one pull per connected login on its portal's queue, and the pull
 * function's handler takes each queued pull as the SQS poller hands it over. The queue here keeps what
 * is sent in memory, as SQS would for the poller.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SQSEvent } from 'aws-lambda';
import { PortalLoginNotFoundError, removePortalLogin } from '../../shared/pulled/logins.ts';
import { pullThroughFunction } from '../../shared/pulled/remote-pull.ts';
import { pullQueueHandler, SLICE_RESERVE_MS } from '../../shared/pulled/pull-handler.ts';
import { pullScheduleHandler } from '../../shared/pulled/schedule-handler.ts';
import type { DueLogin } from '../../shared/pulled/ports.ts';
import type { PullQueue } from '../../shared/pulled/queue.ts';
import { asFunction } from '../support/aws-calls.ts';
import { fakeNinetyNineAcres, istText } from '../support/fake-portals.ts';
import { portalTestService, type PortalTestService } from '../support/portal-service.ts';
import { uniqueMobile } from '../support/service.ts';

const HOUR = 60 * 60 * 1000;
let clock = new Date('2026-12-07T06:00:00.000Z');

let portal: Awaited<ReturnType<typeof fakeNinetyNineAcres>>;
let service: PortalTestService;
let accounts = 0;
const queued = new Map<string, DueLogin[]>();
const queues: ReadonlyMap<string, PullQueue> = new Map(['99acres', 'magicbricks', 'housing'].map((name) => [name, { send: async (logins) => void queued.set(name, [...(queued.get(name) ?? []), ...logins]) }]));
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  portal = await fakeNinetyNineAcres();
  service = await portalTestService({ baseUrls: { '99acres': portal.url }, http: { timeoutMs: 1_000 }, now: () => clock });
});
afterAll(async () => {
  await portal.close();
});

const connected = async () => {
  const accountId = `acc-sched-${++accounts}`;
  await service.seedAccount({ id: accountId, duplicateSetting: 'ignore', projects: { 'PRJ-1': ['CMP-1'] } });
  const user = `sched-broker-${accounts}-${Date.now()}`;
  const fake = portal.login(user, 'secret');
  await service.connect({ accountId, portal: '99acres', login: user, credential: 'secret' });
  return { accountId, user, fake };
};

const schedule = pullScheduleHandler({ logins: () => service.logins, queues: () => queues, write: (line) => void lines.push(JSON.parse(line)) });
const consume = pullQueueHandler({ runtime: () => service.pulls, write: (line) => void lines.push(JSON.parse(line)), now: () => clock });
const sqsEvent = (...bodies: string[]): SQSEvent => ({ Records: bodies.map((body, i) => ({ messageId: `m-${i}`, body }) as SQSEvent['Records'][number]) });
const messageOf = (login: DueLogin) => JSON.stringify({ portal: login.portal, login: login.login, account_id: login.accountId });
const minutesLeft = (minutes: number) => ({ getRemainingTimeInMillis: () => minutes * 60_000 });

describe('the schedule in AWS', () => {
  it("queues each connected login once on its portal's queue, and none removed", async () => {
    const kept = await connected();
    const removed = await connected();
    await removePortalLogin(service.admin, removed.accountId, '99acres', removed.user);
    queued.clear();

    const summary = await asFunction('portal-schedule', () => schedule());

    const logins = queued.get('99acres') ?? [];
    expect(logins.filter((login) => login.login === kept.user)).toEqual([{ portal: '99acres', login: kept.user, accountId: kept.accountId }]);
    expect(logins.filter((login) => login.login === removed.user)).toEqual([]);
    expect(summary.queued).toBe([...queued.values()].flat().length);
    expect(lines.at(-1)).toMatchObject({ message: 'portal pulls queued', queued: summary.queued, unknown_portal: 0 });
  });
});

describe('a queued pull in AWS', () => {
  it("stores the login's enquiries once, however often its pull is queued", async () => {
    const { accountId, user, fake } = await connected();
    const mobile = uniqueMobile();
    fake.add({ id: 'Q-S1', receivedOn: istText(new Date(clock.getTime() - HOUR)), name: 'Meera Iyer', phone: `+91-${mobile}`, projectId: '1', projectName: 'P', city: 'Pune' });
    const message = messageOf({ portal: '99acres', login: user, accountId });

    expect(await asFunction('portal-pull', () => consume(sqsEvent(message, message), minutesLeft(4)))).toEqual({ batchItemFailures: [] });

    const leads = await service.leadsOf(accountId);
    expect(leads.map((lead) => [lead.mobile_number, lead.portal_enquiry_id])).toEqual([[mobile, 'Q-S1']]);
    expect(await service.logins.find('99acres', user)).toMatchObject({ pulledThrough: clock.toISOString() });
  });

  it('reports a message that is not a pull as failed, so the dead-letter queue keeps it', async () => {
    expect(await consume(sqsEvent('{"portal":"99acres"}', 'not json'), minutesLeft(4))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-0' }, { itemIdentifier: 'm-1' }] });
    expect(lines.filter((line) => line.message === 'queued message is not a portal pull')).toHaveLength(2);
  });

  it('is done, not failed, for a login removed since it was queued: nothing is pulled', async () => {
    const { accountId, user } = await connected();
    await removePortalLogin(service.admin, accountId, '99acres', user);
    const asked = portal.requests.length;

    expect(await asFunction('portal-pull', () => consume(sqsEvent(messageOf({ portal: '99acres', login: user, accountId })), minutesLeft(4)))).toEqual({ batchItemFailures: [] });

    expect(portal.requests.length).toBe(asked);
    expect(lines.at(-1)).toMatchObject({ message: 'portal pull skipped', login: user, why: 'not_connected' });
  });

  it('starts no slice in the last minute of its function: the next pull goes on from the watermark', async () => {
    const { accountId, user, fake } = await connected();
    const connectedAt = clock;
    // Three days later: the window is the first day before the connection and three more, in four 24-hour slices.
    clock = new Date(connectedAt.getTime() + 72 * HOUR);
    const mobiles = [uniqueMobile(), uniqueMobile()];
    fake.add(
      { id: 'Q-S2', receivedOn: istText(new Date(connectedAt.getTime() - 2 * HOUR)), name: 'A', phone: `+91-${mobiles[0]}`, projectId: '1', projectName: 'P', city: 'Pune' },
      { id: 'Q-S3', receivedOn: istText(new Date(clock.getTime() - HOUR)), name: 'B', phone: `+91-${mobiles[1]}`, projectId: '1', projectName: 'P', city: 'Pune' },
    );
    const message = messageOf({ portal: '99acres', login: user, accountId });

    // No time left but the reserve: no slice starts, the watermark stays.
    await asFunction('portal-pull', () => consume(sqsEvent(message), { getRemainingTimeInMillis: () => SLICE_RESERVE_MS }));
    expect(await service.leadsOf(accountId)).toEqual([]);
    expect((await service.logins.find('99acres', user))?.pulledThrough).toBeUndefined();
    expect(service.pullLogs.filter((line) => line.login === user && line.outcome === 'deferred')).toHaveLength(1);

    await asFunction('portal-pull', () => consume(sqsEvent(message), minutesLeft(4)));
    expect((await service.leadsOf(accountId)).map((lead) => lead.portal_enquiry_id).sort()).toEqual(['Q-S2', 'Q-S3']);
    expect(await service.logins.find('99acres', user)).toMatchObject({ pulledThrough: clock.toISOString() });
  });
});

describe('a pull asked for now in AWS (pull-portal, the admin API)', () => {
  /** Lambda's Invoke API, faked: each signed request run through the pull function's handler, as Lambda would. */
  const fakeLambda = async () => {
    const requests: { path: string; headers: import('node:http').IncomingHttpHeaders }[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', async () => {
        requests.push({ path: request.url ?? '', headers: request.headers });
        const answer = await asFunction('portal-pull', () => consume(JSON.parse(body), minutesLeft(4)));
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  };
  const credentials = async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' });

  it("runs in the pull function, signed, and answers the pull's summary; another account's login is not found", async () => {
    const lambda = await fakeLambda();
    try {
      const { accountId, user, fake } = await connected();
      fake.add({ id: 'Q-NOW1', receivedOn: istText(new Date(clock.getTime() - HOUR)), name: 'Now', phone: `+91-${uniqueMobile()}`, projectId: '1', projectName: 'P', city: 'Pune' });
      const pullNow = pullThroughFunction({ functionName: 'LeadIntake-test-PortalPulls', region: 'ap-south-1', credentials, endpoint: lambda.url });

      expect(await pullNow(accountId, '99acres', user)).toEqual({ stored: 1, recorded: 0, already: 0, pulled_through: clock.toISOString() });
      expect(lambda.requests[0]).toMatchObject({
        path: '/2015-03-31/functions/LeadIntake-test-PortalPulls/invocations',
        headers: { 'x-amz-invocation-type': 'RequestResponse', authorization: expect.stringMatching(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/ap-south-1\/lambda\/aws4_request/) },
      });
      await expect(pullNow('acc-someone-else', '99acres', user)).rejects.toBeInstanceOf(PortalLoginNotFoundError);
    } finally {
      await lambda.close();
    }
  });
});
