/**
 * CONTRACT.md section 14: a quarantine record keeps the Idempotency-Key of the request that made it,
 * and its release and a later request with that key are one lead: whichever comes first stores it, the
 * other answers it (a release after the request: 409 `Already released`; a request after the release:
 * the released lead, replayed). The issue's stories: a provider that was down (the first request
 * quarantined as captcha_unavailable, its retry with the same key) and a challenge that failed (403
 * and a captcha_failed record, then the page's retry with a new token under the same key).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { adminApi } from '../support/admin-handler.ts';
import { challengesAgainst, fakeSiteverify, type FakeSiteverify } from '../support/fake-siteverify.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

const SECRET = 'release-key-captcha-secret';
const SHOP = 'https://shop.example';
const ACCOUNT = 'acc-rk';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

let provider: FakeSiteverify;
let service: TestService;
let admin: ReturnType<typeof adminApi>;
let challengeKey: string;
let plainBrowserKey: string;

beforeAll(async () => {
  provider = await fakeSiteverify(SECRET);
  service = await testService({ configCacheTtlSeconds: 0, challenges: challengesAgainst(provider, { timeoutMs: 500 }) });
  admin = adminApi(service);
  // Create: a second lead of the same person would be stored (as a repeat), so a double shows.
  await service.seedAccount({ id: ACCOUNT, duplicateSetting: 'create', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
  challengeKey = (await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP], captcha: { provider: 'turnstile', secret: SECRET } })).key;
  plainBrowserKey = (await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP] })).key;
});

beforeEach(() => provider.down(false));

afterAll(async () => {
  await provider.close();
});

const post = (apiKey: string, body: Record<string, unknown>, idempotencyKey: string) =>
  service.call('website', { apiKey, body, headers: { origin: SHOP, 'Idempotency-Key': idempotencyKey } });
const leadsOf = async (mobile: unknown) => (await service.repository.leadArchive.listLeads(ACCOUNT, ['PRJ-1'])).filter((lead) => lead.mobile_number === mobile);
const recordOf = async (mobile: unknown) => {
  const records = (await service.repository.rejections.listRejections(ACCOUNT)).filter((record) => record.submission?.mobile_number === mobile);
  expect(records).toHaveLength(1);
  return records[0]!;
};
const release = (id: string) => admin('POST', `/admin/v1/accounts/${ACCOUNT}/rejections/${id}/release`);

describe('a provider that was down', () => {
  it('keeps the request’s key on its record; the retry with that key is answered the quarantine’s 200, the release stores the one lead, and a later retry is answered it', async () => {
    const body = validBody('website', project, { captcha_token: 'pass' });
    const key = `down-${body.mobile_number}`;
    provider.down(true);
    const first = await post(challengeKey, body, key);
    expect(first.status).toBe(200);
    const record = await recordOf(body.mobile_number);
    expect(record).toMatchObject({ reason: 'captcha_unavailable', idempotency_key: key });

    // The provider is back: the page's retry of the same submission stores nothing beside the quarantine.
    provider.down(false);
    const retry = await post(challengeKey, body, key);
    expect(retry).toMatchObject({ status: 200, body: first.body });
    expect(await leadsOf(body.mobile_number)).toEqual([]);

    const released = await release(record.id);
    expect(released).toMatchObject({ status: 200, body: { data: { mobile_number: body.mobile_number, is_repeated: false } } });
    const after = await post(challengeKey, body, key);
    expect(after).toMatchObject({ status: 200, body: released.body });
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(await release(record.id)).toMatchObject({ status: 409, body: { message: 'Already released' } });
    expect(await leadsOf(body.mobile_number)).toHaveLength(1);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });
});

describe('a challenge that failed, then passed under the same key (the page keeps its key for the same values)', () => {
  it('is stored by the request that passed; the release that follows answers 409 Already released and stores nothing', async () => {
    const failing = validBody('website', project, { captcha_token: 'fail' });
    const key = `failed-${failing.mobile_number}`;
    expect(await post(challengeKey, failing, key)).toMatchObject({ status: 403, body: { message: 'Captcha verification failed' } });
    const record = await recordOf(failing.mobile_number);
    expect(record).toMatchObject({ reason: 'captcha_failed', idempotency_key: key });

    const passed = await post(challengeKey, { ...failing, captcha_token: 'pass' }, key);
    expect(passed.status).toBe(200);
    expect(await release(record.id)).toMatchObject({ status: 409, body: { message: 'Already released' } });
    expect(await leadsOf(failing.mobile_number)).toHaveLength(1);
  });

  it('is stored by the release that came first; the page’s retry with a new token is answered the released lead, without asking the provider', async () => {
    const failing = validBody('website', project, { captcha_token: 'fail' });
    const key = `released-first-${failing.mobile_number}`;
    expect((await post(challengeKey, failing, key)).status).toBe(403);
    const released = await release((await recordOf(failing.mobile_number)).id);
    expect(released.status).toBe(200);
    const asked = provider.requests.length;

    const retry = await post(challengeKey, { ...failing, captcha_token: 'pass' }, key);

    expect(retry).toMatchObject({ status: 200, body: released.body });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(provider.requests.length).toBe(asked);
    expect(await leadsOf(failing.mobile_number)).toHaveLength(1);
  });
});

describe('a release and a request with the record’s key at the same moment', () => {
  it('store one lead between them, whichever wins: the other is answered it (409, or the lead replayed)', async () => {
    for (let round = 0; round < 5; round++) {
      const failing = validBody('website', project, { captcha_token: 'fail' });
      const key = `race-${round}-${failing.mobile_number}`;
      expect((await post(challengeKey, failing, key)).status).toBe(403);
      const record = await recordOf(failing.mobile_number);

      const [released, request] = await Promise.all([release(record.id), post(challengeKey, { ...failing, captcha_token: 'pass' }, key)]);

      const leads = await leadsOf(failing.mobile_number);
      expect(leads).toHaveLength(1);
      if (released.status === 200) {
        expect(request).toMatchObject({ status: 200, body: { data: { id: leads[0]!.id } }, headers: { 'idempotent-replayed': 'true' } });
      } else {
        expect(released).toMatchObject({ status: 409, body: { message: 'Already released' } });
        expect(request).toMatchObject({ status: 200, body: { data: { id: leads[0]!.id } } });
      }
    }
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });
});

describe('a honeypot catch under a key', () => {
  it('is released once: the request repeated after the release is answered the released lead', async () => {
    const body = validBody('website', project, { company_website: 'https://autofill.example' });
    const key = `trap-${body.mobile_number}`;
    expect((await post(plainBrowserKey, body, key)).status).toBe(200);
    const released = await release((await recordOf(body.mobile_number)).id);
    expect(released.status).toBe(200);
    const repeat = await post(plainBrowserKey, body, key);
    expect(repeat).toMatchObject({ status: 200, body: released.body });
    expect(await leadsOf(body.mobile_number)).toHaveLength(1);
  });

  it('leaves nothing of the person once they are erased: the key’s copy of the quarantine’s answer goes with the record', async () => {
    const body = validBody('website', project, { company_website: 'https://autofill.example', email: 'erase.me@example.com' });
    const key = `erased-trap-${body.mobile_number}`;
    expect((await post(plainBrowserKey, body, key)).status).toBe(200);
    expect(await admin('POST', `/admin/v1/accounts/${ACCOUNT}/erasures`, { mobile_number: body.mobile_number })).toMatchObject({ status: 200, body: { rejections: 1 } });
    const items = (await createDocumentClient({ client: service.client }).send(new ScanCommand({ TableName: service.tables.leads, ConsistentRead: true }))).Items ?? [];
    expect(JSON.stringify(items)).not.toContain(body.mobile_number as string);
    expect(JSON.stringify(items)).not.toContain('erase.me');
  });
});
