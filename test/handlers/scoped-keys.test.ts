import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { derivedKeyId, hashApiKey, rotateKey } from '../../shared/domain/api-keys.ts';
import type { StoredApiKey } from '../../shared/domain/ports/keys-and-accounts.ts';
import { failFirst, injectFaults, namedError } from '../support/faults.ts';
import { endpointNames, testService, validBody, type TestService } from '../support/service.ts';
import type { EndpointName } from '../../shared/routes.ts';

/** CONTRACT.md section 7, "Scoped keys": every row of its table, on each endpoint it applies to, in its order. */
let service: TestService;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const SHOP = 'https://shop.example';
const hourAgo = () => new Date(Date.now() - 3_600_000);

beforeAll(async () => {
  // TTL 0: every request reads the key again, so a rotation or revocation shows at once.
  service = await testService({ configCacheTtlSeconds: 0 });
  await service.seedAccount({ id: 'acc-s', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
});

const browserKey = async (origins = [SHOP]) => (await service.issueScopedKey({ accountId: 'acc-s', origins })).key;
/** A key stored as a seed file stores it: for an account that need not exist. */
const storedKey = async (options: Partial<StoredApiKey> & { accountId: string }) => {
  const key = `key-${randomUUID()}`;
  await service.repository.keys.putKey(hashApiKey(key), {
    keyId: derivedKeyId(hashApiKey(key)),
    active: true,
    label: null,
    endpoints: null,
    origins: null,
    expiresAt: null,
    graceEndsAt: null,
    createdAt: new Date().toISOString(),
    ...options,
  });
  return key;
};
const otherEndpoints = (name: EndpointName) => endpointNames.filter((other) => other !== name);

describe('a key created without options', () => {
  it.each(endpointNames)('works on %s exactly as an account key does', async (name) => {
    const { key } = await service.issueScopedKey({ accountId: 'acc-s' });
    const answer = await service.call(name, { apiKey: key, body: validBody(name, project), headers: { 'x-dry-run': 'true' } });
    expect(answer).toMatchObject({ status: 200, body: { status: true } });
  });
});

describe('an expired key', () => {
  it.each(endpointNames)('answers 401 Invalid API credentials on %s', async (name) => {
    const { key } = await service.issueScopedKey({ accountId: 'acc-s', expiresAt: new Date(Date.now() - 60_000).toISOString() }, hourAgo);
    expect(await service.call(name, { apiKey: key, body: validBody(name, project) })).toMatchObject({
      status: 401,
      body: { status: false, message: 'Invalid API credentials' },
    });
  });

  it('answers 401 before 404, even when its account does not exist', async () => {
    const key = await storedKey({ accountId: 'acc-nobody', expiresAt: new Date(Date.now() - 60_000).toISOString() });
    expect((await service.call('portala', { apiKey: key, body: validBody('portala', project) })).body.message).toBe('Invalid API credentials');
  });

  it('works until its expiry', async () => {
    const { key } = await service.issueScopedKey({ accountId: 'acc-s', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await service.call('portalb', { apiKey: key, body: validBody('portalb', project) })).status).toBe(200);
  });
});

describe('a rotated key', () => {
  it.each(endpointNames)('answers 401 on %s once its grace has ended, while its successor works', async (name) => {
    const { key, keyId } = await service.issueScopedKey({ accountId: 'acc-s' });
    const rotated = await rotateKey(service.keyAdmin(), { keyId, graceSeconds: 0 });
    expect((await service.call(name, { apiKey: key, body: validBody(name, project) })).body.message).toBe('Invalid API credentials');
    expect((await service.call(name, { apiKey: rotated.key, body: validBody(name, project) })).status).toBe(200);
  });

  it('keeps working during its grace period', async () => {
    const { key, keyId } = await service.issueScopedKey({ accountId: 'acc-s', endpoints: ['portala'] });
    const rotated = await rotateKey(service.keyAdmin(), { keyId, graceSeconds: 3600 });
    expect((await service.call('portala', { apiKey: key, body: validBody('portala', project) })).status).toBe(200);
    expect((await service.call('portala', { apiKey: rotated.key, body: validBody('portala', project) })).status).toBe(200);
    expect((await service.call('website', { apiKey: rotated.key, body: validBody('website', project) })).status).toBe(403);
  });
});

describe('a key limited to endpoints', () => {
  it.each(endpointNames)('posts to %s, its own endpoint', async (name) => {
    const { key } = await service.issueScopedKey({ accountId: 'acc-s', endpoints: [name] });
    expect((await service.call(name, { apiKey: key, body: validBody(name, project) })).status).toBe(200);
  });

  it.each(endpointNames)('answers 403 API key not allowed on this endpoint on every endpoint but %s', async (name) => {
    const { key } = await service.issueScopedKey({ accountId: 'acc-s', endpoints: [name] });
    for (const other of otherEndpoints(name)) {
      const answer = await service.call(other, { apiKey: key, body: validBody(other, project) });
      expect({ other, status: answer.status, body: answer.body }).toEqual({
        other,
        status: 403,
        body: { status: false, message: 'API key not allowed on this endpoint' },
      });
    }
  });

  it('answers 404 Client not found before 403 when its account does not exist', async () => {
    const key = await storedKey({ accountId: 'acc-nobody', endpoints: ['portala'] });
    expect((await service.call('website', { apiKey: key, body: validBody('website', project) })).body.message).toBe('Client not found');
  });

  it('answers 403, not 413, for an oversized body on an endpoint it may not use', async () => {
    const key = await browserKey();
    const answer = await service.call('portala', { apiKey: key, rawBody: JSON.stringify({ notes: 'x'.repeat(70_000) }) });
    expect(answer).toMatchObject({ status: 403, body: { message: 'API key not allowed on this endpoint' } });
  });

  it('answers 403 for the endpoint before looking at the Origin', async () => {
    const key = await browserKey();
    for (const name of otherEndpoints('website')) {
      expect((await service.call(name, { apiKey: key, body: validBody(name, project) })).body.message).toBe('API key not allowed on this endpoint');
    }
  });
});

describe('a browser key', () => {
  it('stores a lead posted from one of its origins, and echoes that origin as sent, varying on Origin', async () => {
    const key = await browserKey();
    const answer = await service.call('website', { apiKey: key, body: validBody('website', project), headers: { origin: SHOP } });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(SHOP);
    expect(answer.headers.vary).toBe('Origin');
  });

  it('compares origins with scheme and host lower-cased and a default port dropped, and echoes the header as sent', async () => {
    const key = await browserKey(['https://Shop.Example:443']);
    const answer = await service.call('website', { apiKey: key, body: validBody('website', project), headers: { origin: 'HTTPS://shop.EXAMPLE' } });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('HTTPS://shop.EXAMPLE');
  });

  it.each([
    ['without an Origin header', undefined],
    ['from another origin', 'https://evil.example'],
    ['from another port of its host', 'https://shop.example:8443'],
    ['from its host over plain http', 'http://shop.example'],
    ['from an Origin of null', 'null'],
  ])('answers 403 Origin not allowed %s, with no Access-Control-Allow-Origin', async (_, origin) => {
    const key = await browserKey();
    const answer = await service.call('website', { apiKey: key, body: validBody('website', project), headers: { ...(origin && { origin }) } });
    expect(answer).toMatchObject({ status: 403, body: { status: false, message: 'Origin not allowed' } });
    expect(answer.headers).not.toHaveProperty('access-control-allow-origin');
    expect(answer.headers['x-request-id']).toBeTruthy();
  });

  it('answers 403 Origin not allowed before the size, Content-Type and JSON checks', async () => {
    const key = await browserKey();
    const oversized = await service.call('website', { apiKey: key, rawBody: 'x'.repeat(70_000), headers: { origin: 'https://evil.example', 'content-type': 'text/plain' } });
    expect(oversized).toMatchObject({ status: 403, body: { message: 'Origin not allowed' } });
  });

  it('answers 403 to a dry run, with its origin echoed so the page can read why', async () => {
    const key = await browserKey();
    const answer = await service.call('website', { apiKey: key, body: validBody('website', project), headers: { origin: SHOP, 'x-dry-run': 'TRUE' } });
    expect(answer).toMatchObject({ status: 403, body: { status: false, message: 'Dry runs are not allowed with this API key' } });
    expect(answer.headers['access-control-allow-origin']).toBe(SHOP);
  });

  it('refuses a dry run before the size check, and after the origin check', async () => {
    const key = await browserKey();
    const dryOversized = await service.call('website', { apiKey: key, rawBody: 'x'.repeat(70_000), headers: { origin: SHOP, 'x-dry-run': 'true' } });
    expect(dryOversized.body.message).toBe('Dry runs are not allowed with this API key');
    const dryElsewhere = await service.call('website', { apiKey: key, body: validBody('website', project), headers: { origin: 'https://evil.example', 'x-dry-run': 'true' } });
    expect(dryElsewhere.body.message).toBe('Origin not allowed');
  });

  it('still gets the usual 413, 415, 400 and 422 from an allowed origin, each readable by the page', async () => {
    const key = await browserKey();
    const headers = { origin: SHOP };
    const answers = [
      await service.call('website', { apiKey: key, rawBody: JSON.stringify({ notes: 'x'.repeat(70_000) }), headers }),
      await service.call('website', { apiKey: key, rawBody: '{}', headers: { ...headers, 'content-type': 'text/plain' } }),
      await service.call('website', { apiKey: key, rawBody: '{oops', headers }),
      await service.call('website', { apiKey: key, body: { name: 'x' }, headers }),
      await service.call('website', { apiKey: key, body: validBody('website', { projectID: 'PRJ-9', campaignID: 'CMP-1' }), headers }),
    ];
    expect(answers.map((a) => [a.status, a.headers['access-control-allow-origin']])).toEqual([
      [413, SHOP],
      [415, SHOP],
      [400, SHOP],
      [422, SHOP],
      [422, SHOP],
    ]);
  });

  it('echoes its origin on a 503 too', async () => {
    const throttled = failFirst('TransactWriteItemsCommand', 100, () => namedError('ThrottlingException'));
    const faulty = await testService({ instrument: (client) => injectFaults(client, throttled.fault) });
    await faulty.seedAccount({ id: 'acc-f', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    const { key } = await faulty.issueScopedKey({ accountId: 'acc-f', origins: [SHOP] });
    throttled.arm();
    const answer = await faulty.call('website', { apiKey: key, body: validBody('website', project), headers: { origin: SHOP } });
    expect(answer.status).toBe(503);
    expect(answer.headers['access-control-allow-origin']).toBe(SHOP);
  });

  it("answers for its own origins even where the stack's CORS list names others", async () => {
    const narrow = await testService({ corsAllowedOrigins: ['https://other.example'] });
    await narrow.seedAccount({ id: 'acc-n', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    const { key } = await narrow.issueScopedKey({ accountId: 'acc-n', origins: [SHOP] });
    const answer = await narrow.call('website', { apiKey: key, body: validBody('website', project), headers: { origin: SHOP } });
    expect(answer.headers['access-control-allow-origin']).toBe(SHOP);
  });

  it("logs the key's public id with each request, never the key", async () => {
    const { key, keyId } = await service.issueScopedKey({ accountId: 'acc-s', origins: [SHOP] });
    const answer = await service.call('website', { apiKey: key, body: validBody('website', project), headers: { origin: 'https://evil.example' } });
    const line = service.logs.find((logged) => logged.requestId === answer.headers['x-request-id']);
    expect(line).toMatchObject({ keyId, outcome: 'origin_not_allowed', status: 403 });
    expect(JSON.stringify(service.logs)).not.toContain(key);
  });

  it('leaves the answers to keys without origins as they were', async () => {
    const apiKey = await service.issueKey('acc-s');
    const answer = await service.call('website', { apiKey, body: validBody('website', project), headers: { origin: 'https://anywhere.example', 'x-dry-run': 'true' } });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
  });
});
