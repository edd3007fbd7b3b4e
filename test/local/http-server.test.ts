import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { apiGatewayEvent } from '../../shared/http/api-gateway-event.ts';
import type { LeadEvent, LeadResponse } from '../../shared/http/lambda.ts';
import { type EndpointName } from '../../shared/routes.ts';
import { leadRoutes } from '../../shared/sources/registry.ts';
import type { LeadHandlers } from '../../scripts/local/environment.ts';
import { createLocalServer, MAX_READ_BYTES, targetOf } from '../../scripts/local/http-server.ts';

/** Handlers that record the event and context they get and answer with a fixed response. */
const calls: { endpoint: EndpointName; event: LeadEvent; context: Context }[] = [];
let answer: LeadResponse;
const recording = Object.fromEntries(
  leadRoutes.map((route) => [
    route.endpoint,
    async (event: LeadEvent, context: Context) => {
      calls.push({ endpoint: route.endpoint, event, context });
      return answer;
    },
  ]),
) as unknown as LeadHandlers;

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createLocalServer({ handlers: recording });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  calls.length = 0;
  answer = { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' }, body: '{"status":true}' };
});

describe('routing', () => {
  it.each(leadRoutes.map((route) => [route.path, route.endpoint]))('sends POST %s to the %s handler', async (path, endpoint) => {
    const response = await fetch(`${baseUrl}${path}`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(calls.map((call) => call.endpoint)).toEqual([endpoint]);
  });

  it('passes preflight requests of the website route to its handler', async () => {
    answer = { statusCode: 204, headers: { 'access-control-allow-origin': '*' } };
    const response = await fetch(`${baseUrl}/api/website-lead-create`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(calls[0]!.event.requestContext.http.method).toBe('OPTIONS');
  });

  it('answers 404 in the envelope for a path that is no route', async () => {
    const response = await fetch(`${baseUrl}/api/lead-create`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ status: false, message: 'Not found' });
    expect(calls).toEqual([]);
  });

  it.each([
    ['GET', '/api/portala-lead-create', 'POST'],
    ['OPTIONS', '/api/social-lead-create', 'POST'],
    ['PUT', '/api/website-lead-create', 'POST, OPTIONS'],
  ])('answers 405 in the envelope for %s %s', async (method, path, allow) => {
    const response = await fetch(`${baseUrl}${path}`, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(await response.json()).toEqual({ status: false, message: 'Method not allowed' });
    expect(calls).toEqual([]);
  });
});

describe('reading the request target', () => {
  // A plain path skips the URL parser (issue 36): it must read every target as the parser does.
  it.each([
    ...leadRoutes.map((route) => route.path),
    '/',
    '/api/website-lead-create/',
    '/api/call-lead-webhook/exotel',
    '/api/website-lead-create?x=1',
    '/api/./website-lead-create',
    '/api/x/../website-lead-create',
    '/api/website%2Dlead-create',
    '//api/website-lead-create',
    '/api//website-lead-create',
    '/api/website-lead-create#frag',
    '/api/w\u00e9bsite',
  ])('reads %s as the URL parser does', (target) => {
    const parsed = new URL(target, 'http://localhost');
    expect(targetOf(target)).toEqual({ pathname: parsed.pathname, search: parsed.search });
  });
});

describe('the event it builds, as API Gateway does', () => {
  it('has the payload 2.0 shape, lower-cased headers, the source IP and a request id per request', async () => {
    const body = JSON.stringify({ name: 'Asha' });
    await fetch(`${baseUrl}/api/portalb-lead-create?ignored=1`, { method: 'POST', headers: { 'X-Api-Key': 'k-1', 'Content-Type': 'application/json' }, body });
    await fetch(`${baseUrl}/api/portalb-lead-create`, { method: 'POST', body });
    const [{ event }, { event: second }] = calls as [(typeof calls)[0], (typeof calls)[0]];

    const expected = apiGatewayEvent({ path: '/api/portalb-lead-create', headers: {}, body });
    expect(Object.keys(event).sort()).toEqual(Object.keys(expected).sort());
    expect(Object.keys(event.requestContext).sort()).toEqual(Object.keys(expected.requestContext).sort());
    expect(event).toMatchObject({ version: '2.0', routeKey: 'POST /api/portalb-lead-create', rawPath: '/api/portalb-lead-create', body, isBase64Encoded: false });
    expect(event.headers).toMatchObject({ 'x-api-key': 'k-1', 'content-type': 'application/json', host: new URL(baseUrl).host });
    expect(event.requestContext.http).toMatchObject({ method: 'POST', path: '/api/portalb-lead-create', sourceIp: '127.0.0.1' });
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.requestContext.requestId).not.toBe(event.requestContext.requestId);
  });

  it('hands a body that is not UTF-8 on base64-encoded', async () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d]);
    await fetch(`${baseUrl}/api/website-lead-create`, { method: 'POST', body: bytes });
    expect(calls[0]!.event).toMatchObject({ isBase64Encoded: true, body: bytes.toString('base64') });
  });

  it('hands UTF-8 text on as text, whatever its script', async () => {
    const body = JSON.stringify({ name: 'आशा वर्मा', mobile_number: '९८७६५४३२१०' });
    await fetch(`${baseUrl}/api/website-lead-create`, { method: 'POST', body });
    expect(calls[0]!.event).toMatchObject({ isBase64Encoded: false, body });
  });

  it('leaves the body out when there is none', async () => {
    await fetch(`${baseUrl}/api/website-lead-create`, { method: 'POST' });
    expect(calls[0]!.event).not.toHaveProperty('body');
  });

  it('reads at most 1 MiB of a body and hands it on still too large for the handler to accept', async () => {
    await fetch(`${baseUrl}/api/portala-lead-create`, { method: 'POST', body: 'x'.repeat(3 * MAX_READ_BYTES) });
    expect(calls[0]!.event.body).toHaveLength(MAX_READ_BYTES + 1);
  });

  it('gives the handler a Lambda context with the remaining time', async () => {
    await fetch(`${baseUrl}/api/social-lead-create`, { method: 'POST', body: '{}' });
    expect(calls[0]!.context.getRemainingTimeInMillis()).toBeGreaterThan(0);
  });
});

describe('the answer it writes', () => {
  it("writes the handler's status, headers and body as they are", async () => {
    answer = { statusCode: 422, headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'abc', 'retry-after': '1' }, body: '{"status":false,"message":"Lead already exists"}' };
    const response = await fetch(`${baseUrl}/api/website-lead-create`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(422);
    expect(response.headers.get('x-request-id')).toBe('abc');
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.text()).toBe('{"status":false,"message":"Lead already exists"}');
  });

  it('answers 500 in the envelope, and reports it, if a handler throws', async () => {
    const errors: unknown[] = [];
    const failing = createLocalServer({
      handlers: { ...recording, website: async () => Promise.reject(new Error('boom')) },
      onHandlerError: (error) => errors.push(error),
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(failing.address() as AddressInfo).port}/api/website-lead-create`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ status: false, message: 'Lead could not be created' });
      expect(errors).toHaveLength(1);
    } finally {
      failing.closeAllConnections();
      await new Promise((resolve) => failing.close(resolve));
    }
  });
});

describe('the function timeout, as Lambda gives it', () => {
  it('gives each request the stack timeout through getRemainingTimeInMillis by default', async () => {
    await fetch(`${baseUrl}/api/portala-lead-create`, { method: 'POST', body: '{}' });
    const remaining = calls[0]!.context.getRemainingTimeInMillis();
    expect(remaining).toBeLessThanOrEqual(10_000);
    expect(remaining).toBeGreaterThan(9_000);
  });

  it('gives each request the configured timeout, and answers as API Gateway would when a handler overruns it', async () => {
    const seen: number[] = [];
    const errors: unknown[] = [];
    const overrunning = Object.fromEntries(
      leadRoutes.map((route) => [
        route.endpoint,
        async (_event: LeadEvent, context: Context) => {
          seen.push(context.getRemainingTimeInMillis());
          return new Promise<LeadResponse>(() => undefined);
        },
      ]),
    ) as unknown as LeadHandlers;
    const slow = createLocalServer({ handlers: overrunning, functionTimeoutMs: 600, onHandlerError: (error) => errors.push(error) });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const started = performance.now();
      const response = await fetch(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/api/social-lead-create`, { method: 'POST', body: '{}' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(590);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ message: 'Internal Server Error' });
      expect(response.headers.get('x-request-id')).toBeNull();
      expect(seen[0]).toBeLessThanOrEqual(600);
      expect(seen[0]).toBeGreaterThan(400);
      expect(String(errors[0])).toContain('did not answer within the function timeout (600 ms)');
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});

describe('the Host check (DNS rebinding)', () => {
  /** A request with a Host header of our choosing, which fetch does not allow. */
  const withHost = (host: string, path = '/api/website-lead-create', method = 'POST') =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const port = (server.address() as AddressInfo).port;
      const req = httpRequest({ host: '127.0.0.1', port, path, method, agent: false, headers: { host: host.replaceAll('PORT', String(port)), 'content-type': 'application/json' } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end('{}');
    });

  it.each(['evil.example', 'evil.example:PORT', '127.0.0.1', '127.0.0.1:1', 'localhost.evil.example:PORT', '0.0.0.0:PORT'])(
    'answers 403 Host not allowed in the envelope to Host %s, and calls no handler',
    async (host) => {
      const answer = await withHost(host);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({ status: false, message: 'Host not allowed' });
      expect(answer.headers['x-request-id']).toEqual(expect.any(String));
      expect(calls).toEqual([]);
    },
  );

  it('refuses the admin API to a foreign Host too', async () => {
    expect((await withHost('rebound.example:PORT', '/admin/v1/accounts/acc-1', 'GET')).status).toBe(403);
  });

  it.each(['127.0.0.1:PORT', 'localhost:PORT', 'LOCALHOST:PORT', '[::1]:PORT'])('serves Host %s', async (host) => {
    expect((await withHost(host)).status).toBe(200);
  });
});
