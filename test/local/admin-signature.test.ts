/**
 * The local admin API checks AWS Signature Version 4 the way the HTTP API's IAM authorization does:
 * only a request signed with the admin credentials, for execute-api, within 5 minutes, gets through;
 * anything else is answered 403 {"message":"Forbidden"} before the function runs.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignatureV4 } from '@smithy/signature-v4';
import { DEFAULT_ADMIN_CREDENTIALS, NodeSha256 } from '../../scripts/local/admin-auth.ts';
import { createLocalServer } from '../../scripts/local/http-server.ts';
import type { LambdaHandler } from '../../scripts/local/environment.ts';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { adminClient } from '../support/admin-client.ts';
import { testService, type TestService } from '../support/service.ts';

let service: TestService;
let server: Server;
let baseUrl: string;
let invocations = 0;
/** The lines the server logs for the requests it refuses (npm start writes each to its output). */
const refusals: string[] = [];

beforeAll(async () => {
  service = await testService();
  const handler = adminHandler(adminRuntime(service.repository, () => undefined));
  const counted: LambdaHandler = (event, context) => {
    invocations += 1;
    return handler(event, context);
  };
  const lead = service.handlers.website as unknown as LambdaHandler;
  server = createLocalServer({
    handlers: { website: lead, portala: lead, portalb: lead, social: lead },
    admin: { handler: counted, credentials: DEFAULT_ADMIN_CREDENTIALS, region: 'ap-south-1', onRefused: (line) => refusals.push(line) },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const account = { name: 'Signed Realty' };
const forbidden = { status: 403, body: { message: 'Forbidden' } };

/** 403s never reach the function: the invocation count must not move. */
const refusedBeforeTheFunction = async (answer: Promise<{ status: number; body: unknown; headers: Record<string, string> }>) => {
  const before = invocations;
  const result = await answer;
  expect(result).toMatchObject(forbidden);
  expect(result.headers['x-request-id']).toBeUndefined();
  expect(invocations).toBe(before);
};

describe('signed admin requests', () => {
  it('pass with the local credentials, and reach the function', async () => {
    const send = adminClient(baseUrl);
    const answer = await send({ method: 'PUT', path: '/admin/v1/accounts/acc-signed', body: account });
    expect(answer).toMatchObject({ status: 200, body: { id: 'acc-signed', name: 'Signed Realty' } });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expect(await send({ method: 'GET', path: '/admin/v1/accounts/acc-signed' })).toMatchObject({ status: 200 });
  });

  it('pass for an id that needs percent-encoding on the path', async () => {
    const send = adminClient(baseUrl);
    const answer = await send({ method: 'PUT', path: `/admin/v1/accounts/${encodeURIComponent('acc signed é')}`, body: account });
    expect(answer).toMatchObject({ status: 200, body: { id: 'acc signed é' } });
  });

  it('pass when the body hash is sent as x-amz-content-sha256', async () => {
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(JSON.stringify(account)).digest('hex');
    const answer = await adminClient(baseUrl)({ method: 'PUT', path: '/admin/v1/accounts/acc-hashed', body: account, headers: { 'x-amz-content-sha256': hash } });
    expect(answer.status).toBe(200);
  });
});

describe('refused admin requests (403 Forbidden, before the function)', () => {
  it('refuses an unsigned request', async () => {
    await refusedBeforeTheFunction(
      fetch(`${baseUrl}/admin/v1/accounts/acc-signed`).then(async (r) => ({ status: r.status, body: await r.json(), headers: Object.fromEntries(r.headers) })),
    );
  });

  it('refuses a request signed with the wrong secret', async () => {
    const send = adminClient(baseUrl, { credentials: { accessKeyId: DEFAULT_ADMIN_CREDENTIALS.accessKeyId, secretAccessKey: 'not-the-secret' } });
    await refusedBeforeTheFunction(send({ method: 'GET', path: '/admin/v1/accounts/acc-signed' }));
  });

  it('refuses a request signed with another access key id', async () => {
    const send = adminClient(baseUrl, { credentials: { accessKeyId: 'AKIDSOMEONEELSE', secretAccessKey: DEFAULT_ADMIN_CREDENTIALS.secretAccessKey } });
    await refusedBeforeTheFunction(send({ method: 'GET', path: '/admin/v1/accounts/acc-signed' }));
  });

  it('refuses a body altered after signing', async () => {
    await refusedBeforeTheFunction(adminClient(baseUrl)({ method: 'PUT', path: '/admin/v1/accounts/acc-signed', body: account, sentBody: JSON.stringify({ name: 'Hijacked' }) }));
    expect((await adminClient(baseUrl)({ method: 'GET', path: '/admin/v1/accounts/acc-signed' })).body.name).toBe('Signed Realty');
  });

  it('refuses a body hash header that is not the body', async () => {
    const answer = adminClient(baseUrl)({ method: 'PUT', path: '/admin/v1/accounts/acc-signed', body: account, headers: { 'x-amz-content-sha256': '0'.repeat(64) } });
    await refusedBeforeTheFunction(answer);
  });

  it('refuses a signature dated more than 5 minutes ago, or ahead', async () => {
    await refusedBeforeTheFunction(adminClient(baseUrl, { signingDate: new Date(Date.now() - 6 * 60_000) })({ method: 'GET', path: '/admin/v1/accounts/acc-signed' }));
    await refusedBeforeTheFunction(adminClient(baseUrl, { signingDate: new Date(Date.now() + 6 * 60_000) })({ method: 'GET', path: '/admin/v1/accounts/acc-signed' }));
    expect((await adminClient(baseUrl, { signingDate: new Date(Date.now() - 4 * 60_000) })({ method: 'GET', path: '/admin/v1/accounts/acc-signed' })).status).toBe(200);
  });

  it('refuses a signature for another region or another service', async () => {
    await refusedBeforeTheFunction(adminClient(baseUrl, { region: 'us-east-1' })({ method: 'GET', path: '/admin/v1/accounts/acc-signed' }));
    await refusedBeforeTheFunction(adminClient(baseUrl, { service: 'execute-apix' })({ method: 'GET', path: '/admin/v1/accounts/acc-signed' }));
  });

  it('refuses a signature made for another path', async () => {
    const send = adminClient(baseUrl);
    // Sign a GET of one account, then replay its headers on another.
    const url = new URL(baseUrl);
    const signed = await new SignatureV4({ credentials: DEFAULT_ADMIN_CREDENTIALS, region: 'ap-south-1', service: 'execute-api', sha256: NodeSha256 }).sign({
      method: 'GET', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: '/admin/v1/accounts/acc-signed', query: {}, headers: { host: url.host },
    });
    const replayed = await fetch(`${baseUrl}/admin/v1/accounts/acc-hashed`, { headers: signed.headers });
    expect({ status: replayed.status, body: await replayed.json() }).toEqual(forbidden);
    expect((await send({ method: 'GET', path: '/admin/v1/accounts/acc-hashed' })).status).toBe(200);
  });
});

describe('signed requests changed after signing (403 Forbidden, before the function)', () => {
  /** The headers a request is sent with, signed now for `method` and `path`. */
  const signedHeaders = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
    const url = new URL(baseUrl);
    const signed = await new SignatureV4({ credentials: DEFAULT_ADMIN_CREDENTIALS, region: 'ap-south-1', service: 'execute-api', sha256: NodeSha256 }).sign({
      method,
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path,
      query: {},
      headers: { host: url.host, ...headers },
      ...(body !== undefined && { body }),
    });
    return signed.headers as Record<string, string>;
  };
  const sent = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined && { body }) });
    return { status: response.status, body: await response.json(), headers: Object.fromEntries(response.headers) };
  };

  it('refuses a signed header whose value was changed after signing', async () => {
    const body = JSON.stringify({ name: 'Header Realty' });
    const headers = await signedHeaders('PUT', '/admin/v1/accounts/acc-header', { 'content-type': 'application/json', 'x-crm-request': 'sync-1' }, body);
    // The header is one the signature covers.
    expect(headers.authorization).toMatch(/SignedHeaders=[^,]*x-crm-request/);
    await refusedBeforeTheFunction(sent('PUT', '/admin/v1/accounts/acc-header', { ...headers, 'x-crm-request': 'sync-2' }, body));
    // Untouched, the same signed request passes: the refusal was the changed header.
    expect((await sent('PUT', '/admin/v1/accounts/acc-header', headers, body)).status).toBe(200);
  });

  it('refuses x-amz-date moved (within the 5 minutes) under the old signature', async () => {
    const headers = await signedHeaders('GET', '/admin/v1/accounts/acc-signed');
    const signedAt = headers['x-amz-date']!;
    const moved = new Date(Date.parse(signedAt.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z')) - 60_000);
    const movedDate = moved.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    expect(movedDate).not.toBe(signedAt);
    await refusedBeforeTheFunction(sent('GET', '/admin/v1/accounts/acc-signed', { ...headers, 'x-amz-date': movedDate }));
    expect((await sent('GET', '/admin/v1/accounts/acc-signed', headers)).status).toBe(200);
  });

  it('refuses a signed GET replayed as DELETE, and the project stays', async () => {
    const send = adminClient(baseUrl);
    expect((await send({ method: 'PUT', path: '/admin/v1/accounts/acc-replay', body: { name: 'Replay Realty' } })).status).toBe(200);
    expect((await send({ method: 'PUT', path: '/admin/v1/accounts/acc-replay/projects/PRJ-1', body: { name: 'Harbour View' } })).status).toBe(200);
    const headers = await signedHeaders('GET', '/admin/v1/accounts/acc-replay/projects/PRJ-1');
    await refusedBeforeTheFunction(sent('DELETE', '/admin/v1/accounts/acc-replay/projects/PRJ-1', headers));
    expect((await send({ method: 'GET', path: '/admin/v1/accounts/acc-replay' })).body.projects).toEqual([{ id: 'PRJ-1', name: 'Harbour View', campaigns: [] }]);
  });
});

describe('a signed PUT replayed as DELETE on the same admin path', () => {
  it('is refused before the function, and the project stays', async () => {
    const send = adminClient(baseUrl);
    const path = '/admin/v1/accounts/acc-replay-put/projects/PRJ-1';
    expect((await send({ method: 'PUT', path: '/admin/v1/accounts/acc-replay-put', body: { name: 'Replay Realty' } })).status).toBe(200);
    const body = JSON.stringify({ name: 'Harbour View' });
    const url = new URL(baseUrl);
    const signed = await new SignatureV4({ credentials: DEFAULT_ADMIN_CREDENTIALS, region: 'ap-south-1', service: 'execute-api', sha256: NodeSha256 }).sign({
      method: 'PUT',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path,
      query: {},
      headers: { host: url.host, 'content-type': 'application/json' },
      body,
    });
    const headers = signed.headers as Record<string, string>;
    const sent = async (method: string) => {
      const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
      return { status: response.status, body: await response.json(), headers: Object.fromEntries(response.headers) };
    };
    // The PUT as signed passes: the signature, the path and the body are right.
    expect((await sent('PUT')).status).toBe(200);
    // The same headers and body as DELETE: the method is part of what was signed.
    await refusedBeforeTheFunction(sent('DELETE'));
    expect((await send({ method: 'GET', path: '/admin/v1/accounts/acc-replay-put' })).body.projects).toEqual([{ id: 'PRJ-1', name: 'Harbour View', campaigns: [] }]);
  });
});

describe('admin paths the API has no route for', () => {
  it('answers 404 Not Found, as API Gateway does, signed or not', async () => {
    expect(await adminClient(baseUrl)({ method: 'POST', path: '/admin/v1/accounts/acc-signed' })).toMatchObject({ status: 404, body: { message: 'Not Found' } });
    const unsigned = await fetch(`${baseUrl}/admin/v1/nothing`);
    expect(unsigned.status).toBe(404);
  });
});

describe('the line logged for a refused request: why, and nothing that signs or names anyone', () => {
  /** The one line logged while `refuse` ran. */
  const lineOf = async (refuse: () => Promise<{ status: number }>) => {
    const before = refusals.length;
    expect((await refuse()).status).toBe(403);
    expect(refusals.slice(before)).toHaveLength(1);
    const line = refusals.at(-1)!;
    expect(line).not.toContain(DEFAULT_ADMIN_CREDENTIALS.secretAccessKey);
    return line;
  };
  const read = { method: 'GET', path: '/admin/v1/accounts/acc-signed' };

  it('names a missing signature', async () => {
    expect(await lineOf(() => fetch(`${baseUrl}/admin/v1/accounts/acc-signed`))).toMatch(/^403 GET \/admin\/v1\/accounts\/acc-signed: no AWS Signature Version 4/);
  });

  it('names another access key id without repeating it, another region, and a stale date', async () => {
    const otherKey = await lineOf(() => adminClient(baseUrl, { credentials: { accessKeyId: 'AKIDSOMEONEELSE', secretAccessKey: 'x' } })(read));
    expect(otherKey).toContain('signed with another access key id');
    expect(otherKey).not.toContain('AKIDSOMEONEELSE');
    expect(await lineOf(() => adminClient(baseUrl, { region: 'us-east-1' })(read))).toContain('signed for region "us-east-1", not "ap-south-1"');
    expect(await lineOf(() => adminClient(baseUrl, { signingDate: new Date(Date.now() - 6 * 60_000) })(read))).toMatch(/x-amz-date is 3[6-9]\d s from now, more than 300 s/);
  });

  it('names a signature that does not match, with what the service signed', async () => {
    const wrongSecret = adminClient(baseUrl, { credentials: { accessKeyId: DEFAULT_ADMIN_CREDENTIALS.accessKeyId, secretAccessKey: 'not-the-secret' } });
    expect(await lineOf(() => wrongSecret({ method: 'GET', path: '/admin/v1/accounts/acc-signed/rejections?limit=2&reason=honeypot' }))).toBe(
      '403 GET /admin/v1/accounts/acc-signed/rejections?limit=2&reason=honeypot: signature mismatch: check the secret, the body, and that path and query are signed apart, as sent ' +
        '(the service signed path /admin/v1/accounts/acc-signed/rejections, query "limit=2&reason=honeypot", headers host;x-amz-content-sha256;x-amz-date)',
    );
  });

  it('names a query left out of the signature, and redacts an e-mail in the query', async () => {
    const url = new URL(baseUrl);
    const email = 'priya.sharma@example.in';
    const signed = await new SignatureV4({ credentials: DEFAULT_ADMIN_CREDENTIALS, region: 'ap-south-1', service: 'execute-api', sha256: NodeSha256 }).sign({
      method: 'GET', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: '/admin/v1/accounts/acc-signed/people', query: {}, headers: { host: url.host },
    });
    const line = await lineOf(() => fetch(`${baseUrl}/admin/v1/accounts/acc-signed/people?email=${encodeURIComponent(email)}`, { headers: signed.headers }));
    expect(line).toMatch(/^403 GET \/admin\/v1\/accounts\/acc-signed\/people\?email=<redacted>: signature mismatch: the query was left out of the signature/);
    expect(line).not.toMatch(/priya|example\.in/);
  });
});
