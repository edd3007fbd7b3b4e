/**
 * CONTRACT.md section 14, first rule: a request that repeats an Idempotency-Key already answered (the
 * same key and body within 24 hours) gets that answer again, same status and body with
 * `idempotent-replayed: true`, before any check that could answer differently: a challenge is not
 * asked again (its token is single-use), the browser key's minute bound is not counted again, and a
 * project retired since does not turn the answer into a 422. A quarantined request's 200 is such an
 * answer: its repeat gets the same lead id and stores no second record.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { challengesAgainst, fakeSiteverify, type FakeSiteverify } from '../support/fake-siteverify.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

const SECRET = 'replay-captcha-secret';
const SHOP = 'https://shop.example';
const ACCOUNT = 'acc-replay';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
/** A small minute bound, so that a count taken twice shows. */
const PER_MINUTE = 3;

let provider: FakeSiteverify;
let service: TestService;
let challengeKey: string;
let plainBrowserKey: string;

beforeAll(async () => {
  provider = await fakeSiteverify(SECRET);
  service = await testService({ challenges: challengesAgainst(provider), rejectionRecordsPerMinute: PER_MINUTE });
  await service.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
  challengeKey = (await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP], captcha: { provider: 'turnstile', secret: SECRET } })).key;
  plainBrowserKey = (await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP] })).key;
});

afterAll(async () => {
  await provider.close();
});

const post = (apiKey: string, body: Record<string, unknown>, idempotencyKey?: string) =>
  service.call('website', { apiKey, body, headers: { origin: SHOP, ...(idempotencyKey !== undefined && { 'Idempotency-Key': idempotencyKey }) } });
const leadsOf = async (mobile: string) => (await service.repository.leadArchive.listLeads(ACCOUNT, ['PRJ-1'])).filter((lead) => lead.mobile_number === mobile);
const recordsOf = async (mobile: string) => (await service.repository.rejections.listRejections(ACCOUNT)).filter((record) => record.submission?.mobile_number === mobile);

describe('a repeat of an Idempotency-Key with a challenge key', () => {
  it('gets the stored lead again without asking the provider: a single-use token retried after a lost answer is not refused', async () => {
    const body = validBody('website', project, { captcha_token: `once-${uniqueMobile()}` });
    const key = `lost-answer-${body.mobile_number}`;
    const first = await post(challengeKey, body, key);
    expect(first.status).toBe(200);
    const asked = provider.requests.length;

    const retry = await post(challengeKey, body, key);

    expect(retry).toMatchObject({ status: 200, body: first.body });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(provider.requests.length).toBe(asked);
    expect(await leadsOf(body.mobile_number as string)).toHaveLength(1);
    expect(await recordsOf(body.mobile_number as string)).toEqual([]);
  });

  it('gets a quarantined 200 again (the same lead id) when the provider could not answer, and stores no second record', async () => {
    const body = validBody('website', project, { captcha_token: 'server-error' });
    const key = `unavailable-${body.mobile_number}`;
    const first = await post(challengeKey, body, key);
    expect(first).toMatchObject({ status: 200, body: { status: true, data: { mobile_number: body.mobile_number } } });
    const asked = provider.requests.length;

    const retry = await post(challengeKey, body, key);

    expect(retry).toMatchObject({ status: 200, body: first.body });
    expect(retry.body.data.id).toBe(first.body.data.id);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(provider.requests.length).toBe(asked);
    expect(await recordsOf(body.mobile_number as string)).toEqual([expect.objectContaining({ reason: 'captcha_unavailable', idempotency_key: key })]);
    expect(await leadsOf(body.mobile_number as string)).toEqual([]);
  });

  it('costs one GetItem more than a new lead without a key, and a replay that GetItem alone', async () => {
    const warm = validBody('website', project, { captcha_token: 'pass' });
    await post(challengeKey, warm);
    const body = validBody('website', project, { captcha_token: 'pass' });
    service.roundTrips.reset();
    expect((await post(challengeKey, body, `trips-${body.mobile_number}`)).status).toBe(200);
    expect(service.roundTrips.commands()).toEqual(['GetItemCommand', 'TransactWriteItemsCommand']);
    service.roundTrips.reset();
    expect((await post(challengeKey, body, `trips-${body.mobile_number}`)).headers['idempotent-replayed']).toBe('true');
    expect(service.roundTrips.commands()).toEqual(['GetItemCommand']);
  });
});

describe('a repeat of an Idempotency-Key with a browser key without a challenge', () => {
  it('gets a honeypot catch’s 200 again (the same lead id), keeps one record, and is not counted again by the minute bound', async () => {
    const body = validBody('website', project, { company_website: 'https://autofill.example' });
    const key = `honeypot-${body.mobile_number}`;
    const first = await post(plainBrowserKey, body, key);
    expect(first.status).toBe(200);
    const repeats = [];
    for (let i = 0; i < PER_MINUTE + 1; i++) repeats.push(await post(plainBrowserKey, body, key));

    for (const repeat of repeats) {
      expect(repeat).toMatchObject({ status: 200, body: first.body });
      expect(repeat.headers['idempotent-replayed']).toBe('true');
    }
    const records = await service.repository.rejections.listRejections(ACCOUNT);
    expect(records.filter((record) => record.submission?.mobile_number === body.mobile_number)).toHaveLength(1);
    // Counted once: had the repeats been counted, the minute's bound would be spent and they suppressed.
    expect(records.filter((record) => record.reason === 'suppressed')).toEqual([]);
  });

  it('finds the key in the quarantine record’s own write: a honeypot catch under a key still costs one request', async () => {
    await post(plainBrowserKey, validBody('website', project));
    const body = validBody('website', project, { company_website: 'https://autofill.example' });
    service.roundTrips.reset();
    expect((await post(plainBrowserKey, body, `one-trip-${body.mobile_number}`)).status).toBe(200);
    expect(service.roundTrips.commands()).toEqual(['TransactWriteItemsCommand']);
  });
});

describe('a repeat of an Idempotency-Key after a change that would refuse it', () => {
  it('gets the stored lead again, not Project not found, when the project was retired since', async () => {
    const fresh = await testService({ configCacheTtlSeconds: 0 });
    await fresh.seedAccount({ id: 'acc-retired', projects: { 'PRJ-9': ['CMP-9'] } });
    const apiKey = await fresh.issueKey('acc-retired');
    const body = validBody('portala', { projectID: 'PRJ-9', campaignID: 'CMP-9' });
    const send = () => fresh.call('portala', { apiKey, body, headers: { 'Idempotency-Key': `retired-${body.mobile_number}` } });
    const first = await send();
    expect(first.status).toBe(200);
    expect(await fresh.repository.accounts.retireProject('acc-retired', 'PRJ-9')).toBe('retired');

    const retry = await send();

    expect(retry).toMatchObject({ status: 200, body: first.body });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // A new submission is refused as before.
    expect((await fresh.call('portala', { apiKey, body: validBody('portala', { projectID: 'PRJ-9', campaignID: 'CMP-9' }) })).body.message).toBe('Project not found');
  });
});
