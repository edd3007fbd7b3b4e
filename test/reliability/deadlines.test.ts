import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLocalServer } from '../../scripts/local/http-server.ts';
import type { LeadHandlers } from '../../scripts/local/environment.ts';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext } from '../../shared/http/lambda.ts';
import { routeKeyOf, type EndpointName } from '../../shared/routes.ts';
import { matchAdminPath } from '../../shared/admin-routes.ts';
import { leadRoutes } from '../../shared/sources/registry.ts';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { fieldData } from '../support/fake-graph.ts';
import { healedBeforeEach, startFaultRelay, type FaultRelay, type RelayAction } from '../support/fault-relay.ts';
import { metaTestService, type MetaTestService } from '../support/meta-service.ts';
import { timedWithStalls } from '../support/event-loop.ts';
import { endpointNames, testService, uniqueMobile, untilAnswered, validBody, type TestService } from '../support/service.ts';

/**
 * CONTRACT.md section 7 "Deadlines": every answer comes from the handler, enveloped, before the
 * function's timeout, whichever stage the database stopped answering in. The service talks to
 * DynamoDB Local through a relay that can turn into a black hole (it accepts a request and never
 * answers); the function timeout is shrunk to 2 s so each case takes about that long.
 */
const TIMEOUT_MS = 2_000;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const UNAVAILABLE = { status: false, message: 'Service temporarily unavailable, please retry' };
const stall: RelayAction = { kind: 'stall' };

let relay: FaultRelay;

beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
});

healedBeforeEach(() => relay);

const serviceBehindRelay = async (configCacheTtlSeconds: number) => {
  relay.heal();
  const service = await testService({ endpoint: relay.endpoint, functionTimeoutMs: TIMEOUT_MS, configCacheTtlSeconds });
  await service.seedAccount({ id: 'acc-d', duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
  const apiKey = await service.issueKey('acc-d');
  return { service, apiKey };
};

/**
 * How long `work` took, less the longest stall of this process's event loop meanwhile: on a machine
 * whose cores other work shares, a timer due at the deadline runs late by that stall, which is the
 * machine's doing, not the service's (in Lambda the function has its CPU).
 */
const timed = async <T>(work: () => Promise<T>): Promise<{ answer: T; ms: number }> => {
  const { answer, ms, stallMs } = await timedWithStalls(work);
  return { answer, ms: ms - stallMs };
};

describe('a database that accepts connections and never answers', () => {
  let service: TestService;
  let apiKey: string;
  let server: Server;
  let baseUrl: string;
  const handlerErrors: unknown[] = [];

  beforeAll(async () => {
    ({ service, apiKey } = await serviceBehindRelay(30));
    server = createLocalServer({
      handlers: service.handlers as unknown as LeadHandlers,
      functionTimeoutMs: TIMEOUT_MS,
      onHandlerError: (error) => handlerErrors.push(error),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  const post = async (name: EndpointName, headers: Record<string, string> = {}) => {
    const path = leadRoutes.find((route) => route.endpoint === name)!.path;
    const { answer, ms } = await timed(async () => {
      const response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
        body: JSON.stringify(validBody(name, project)),
      });
      return { status: response.status, headers: Object.fromEntries(response.headers), body: (await response.json()) as Record<string, unknown> };
    });
    return { ...answer, ms };
  };

  it('answers every endpoint 503 with the envelope, x-request-id and Retry-After before the function times out, and recovers without a restart', async () => {
    // Warm: keys and accounts are cached, and each endpoint has stored a lead.
    for (const name of endpointNames) expect((await post(name)).status).toBe(200);

    relay.plan(() => stall);
    const during = await Promise.all(endpointNames.flatMap((name) => [post(name), post(name, { 'idempotency-key': `k-${name}-${uniqueMobile()}` })]));
    for (const answer of during) {
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual(UNAVAILABLE);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.ms).toBeLessThan(TIMEOUT_MS);
    }
    // The website's answers stay readable by the page that posted.
    expect(during.filter((_, i) => endpointNames[Math.floor(i / 2)] === 'website').every((a) => a.headers['access-control-allow-origin'] === '*')).toBe(true);
    // Each request tried its write and then the read-back, and both were cut off in time.
    expect(relay.seen('TransactWriteItems').filter((r) => r.action === 'stall').length).toBeGreaterThanOrEqual(during.length);
    expect(relay.seen('GetItem').filter((r) => r.action === 'stall').length).toBeGreaterThanOrEqual(during.length);

    relay.heal();
    for (const name of endpointNames) {
      const answer = await post(name);
      expect(answer.status).toBe(200);
      expect(answer.ms).toBeLessThan(TIMEOUT_MS);
    }
    expect(handlerErrors).toEqual([]);
    // Nothing the black hole swallowed was stored: a lead per 200, no more.
    expect(await service.repository.leadArchive.listLeads('acc-d', ['PRJ-1'])).toHaveLength(2 * endpointNames.length);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  }, 30_000);
});

describe('the deadline holds whichever call the database stops answering', () => {
  let service: TestService;
  let apiKey: string;

  beforeAll(async () => {
    // No cache: every request reads its key and its account, so each stage can be reached.
    ({ service, apiKey } = await serviceBehindRelay(0));
  });

  const send = (body: Record<string, unknown> = validBody('portala', project)) => timed(() => service.call('portala', { apiKey, body }));
  const leads = () => service.repository.leadArchive.listLeads('acc-d', ['PRJ-1']);

  it.each([
    ['the API key lookup', 'GetItem'],
    ['the account read', 'Query'],
  ])('answers 503 in time when %s never answers', async (_, operation) => {
    const before = (await leads()).length;
    relay.plan((request) => (request.operation === operation ? stall : undefined));
    const { answer, ms } = await send();
    relay.heal();
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.headers['x-request-id']).toBeTruthy();
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(relay.seen('TransactWriteItems')).toHaveLength(0);
    expect(await leads()).toHaveLength(before);
  });

  it('answers 503 in time when the lead write never answers, after reading back that it was not stored', async () => {
    const before = (await leads()).length;
    relay.plan((request) => (request.operation === 'TransactWriteItems' ? stall : undefined));
    const { answer, ms } = await send();
    relay.heal();
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(ms).toBeLessThan(TIMEOUT_MS);
    // The write itself stalled (not an earlier read), and the last word was the read-back after it.
    const seen = relay.seen();
    const stalledWrite = seen.findIndex((r) => r.operation === 'TransactWriteItems' && r.action === 'stall');
    expect(stalledWrite).toBeGreaterThanOrEqual(0);
    expect(seen.slice(stalledWrite + 1).map((r) => r.operation)).toEqual(expect.arrayContaining(['GetItem']));
    expect(seen.at(-1)).toMatchObject({ operation: 'GetItem', action: 'pass' });
    expect(await leads()).toHaveLength(before);
  });

  it('answers 200 in time when the write was applied, its answer lost and its retries unanswered, since the read-back finds the lead', async () => {
    const before = (await leads()).length;
    let writes = 0;
    relay.plan((request) => (request.operation === 'TransactWriteItems' ? ((writes += 1) === 1 ? { kind: 'pass-then-reset' } : stall) : undefined));
    const { answer, ms } = await send();
    relay.heal();
    expect(answer.status).toBe(200);
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(relay.seen('TransactWriteItems').map((r) => r.action)).toContain('pass-then-reset');
    const stored = await leads();
    expect(stored).toHaveLength(before + 1);
    expect(stored.find((lead) => lead.id === answer.body.data.id)).toMatchObject({ mobile_number: answer.body.data.mobile_number });
  });

  it('answers 503 in time when the read-back after a lost answer never answers either, and the Idempotency-Key retry answers the stored lead', async () => {
    const before = await leads();
    const body = validBody('portala', project);
    const headers = { 'idempotency-key': `k-${uniqueMobile()}` };
    let wrote = false;
    relay.plan((request) => {
      if (request.operation === 'TransactWriteItems') {
        const first = !wrote;
        wrote = true;
        return first ? { kind: 'pass-then-reset' } : stall;
      }
      return wrote ? stall : undefined;
    });
    const { answer, ms } = await timed(() => service.call('portala', { apiKey, body, headers }));
    relay.heal();
    // The lead is stored and the sender hears 503: the one case the service cannot tell, which the
    // Idempotency-Key exists for (docs/reliability.md). It is never a timeout nor a 500.
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(answer.headers['retry-after']).toBe('1');
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(relay.seen('TransactWriteItems')[0]?.action).toBe('pass-then-reset');
    expect(relay.seen('GetItem').at(-1)?.action).toBe('stall');
    const beforeIds = new Set(before.map((lead) => lead.id));
    const stored = (await leads()).filter((lead) => !beforeIds.has(lead.id));
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ mobile_number: body.mobile_number });

    // The sender's retry under the same key is answered with that lead, and stores nothing more.
    const retry = await service.call('portala', { apiKey, body, headers });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.data).toMatchObject({ id: stored[0]!.id });
    expect(await leads()).toHaveLength(before.length + 1);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });

  it('answers 503 in time when the rejection record never answers, never a 422 over a record it did not keep', async () => {
    // The record and its person lookup items are one BatchWriteItem; a refused project writes no lead.
    relay.plan((request) => (request.operation === 'BatchWriteItem' ? stall : undefined));
    const { answer, ms } = await send(validBody('portala', { projectID: 'PRJ-404', campaignID: 'CMP-1' }));
    relay.heal();
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ status: false, message: 'Service temporarily unavailable, please retry' });
    expect(answer.headers['retry-after']).toBe('1');
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(relay.seen('BatchWriteItem').map((r) => r.action)).toContain('stall');
  });
});

describe('the admin API on a database that never answers', () => {
  it('answers 503 with the envelope and Retry-After before its function times out', async () => {
    const { service } = await serviceBehindRelay(0);
    const handler = adminHandler(adminRuntime(service.repository, () => undefined));
    const path = '/admin/v1/accounts/acc-d/projects/PRJ-2';
    const match = matchAdminPath(path)!;
    const route = match.routes.find((r) => r.method === 'PUT')!;
    const event = apiGatewayEvent({
      method: 'PUT',
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Second tower' }),
      routeKey: routeKeyOf(route),
      pathParameters: match.pathParameters,
    });
    relay.plan(() => stall);
    const { answer, ms } = await timed(() => handler(event, lambdaContext('admin', TIMEOUT_MS) as LeadContext));
    relay.heal();
    expect(answer.statusCode).toBe(503);
    expect(JSON.parse(answer.body!)).toEqual(UNAVAILABLE);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(ms).toBeLessThan(TIMEOUT_MS);
  });
});

// Through npm start's in-memory queue (the failed receive retried, one lead), as every source's: test/sources/every-source.test.ts.
describe('the Meta worker on a database that never answers', () => {
  let meta: MetaTestService;
  const FORM = '3001';
  let sequence = 9_200_000;

  beforeAll(async () => {
    relay.heal();
    meta = await metaTestService({ endpoint: relay.endpoint, workerTimeoutMs: TIMEOUT_MS, configCacheTtlSeconds: 0 });
    await meta.seedAccount({ id: 'acc-meta', duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb'] });
    await meta.connectPage('acc-meta', '31', 'EAAB-token-meta-31', { [FORM]: project });
  });
  afterAll(async () => {
    meta?.queue.stop();
    await meta?.graph.close();
  });

  const metaLead = () => {
    const leadgenId = String((sequence += 1));
    meta.graph.serve(leadgenId, 'EAAB-token-meta-31', { platform: 'fb', form_id: FORM, field_data: fieldData({ full_name: 'Asha Verma', phone_number: uniqueMobile() }) });
    return leadgenId;
  };
  const storedOf = async (leadgenId: string) => (await meta.leadsOf('acc-meta')).filter((lead) => lead.meta_leadgen_id === leadgenId);

  it('as Lambda runs it: fails the message within the function timeout, and the next receive stores the lead once', async () => {
    const leadgenId = metaLead();
    const change = { pageId: '31', leadgenId, formId: FORM, requestId: 'req-deadline-1' };
    const event = (receive: number): SQSEvent => ({
      Records: [
        {
          messageId: 'msg-1',
          receiptHandle: `msg-1#${receive}`,
          body: JSON.stringify(change),
          attributes: { ApproximateReceiveCount: String(receive), SentTimestamp: '0', SenderId: 'test', ApproximateFirstReceiveTimestamp: '0' },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:local:000000000000:leadgen',
          awsRegion: 'local',
        },
      ],
    });
    relay.plan(() => stall);
    const { answer, ms } = await timed<SQSBatchResponse>(() => meta.worker(event(1), lambdaContext('meta-worker', TIMEOUT_MS)));
    relay.heal();
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-1' }] });
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(relay.seen().some((request) => request.action === 'stall')).toBe(true);
    expect(await storedOf(leadgenId)).toEqual([]);

    expect(await meta.worker(event(2), lambdaContext('meta-worker', TIMEOUT_MS))).toEqual({ batchItemFailures: [] });
    expect(await storedOf(leadgenId)).toHaveLength(1);
  });
});

describe("Lambda's shortest timeout", () => {
  it('still stores a lead with a 1 s function timeout on a healthy database', async () => {
    relay.heal();
    const service = await testService({ endpoint: relay.endpoint, functionTimeoutMs: 1_000, configCacheTtlSeconds: 0 });
    await service.seedAccount({ id: 'acc-short', projects: { 'PRJ-1': ['CMP-1'] } });
    const apiKey = await service.issueKey('acc-short');
    // On a busy machine 1 s can pass before the write: then the answer is 503 in time, and the sender's
    // retry (same request, same Idempotency-Key) is what stores it, once.
    const request = { apiKey, body: validBody('portala', project), headers: { 'idempotency-key': `short-${uniqueMobile()}` } };
    const attempts: { status: number; ms: number }[] = [];
    const answer = await untilAnswered(async () => {
      const { answer: attempt, ms } = await timed(() => service.call('portala', request));
      attempts.push({ status: attempt.status, ms });
      return attempt;
    });
    expect(answer.status).toBe(200);
    for (const attempt of attempts) expect(attempt.ms).toBeLessThan(1_000);
    expect(await service.repository.leadArchive.listLeads('acc-short', ['PRJ-1'])).toHaveLength(1);
  });
});
