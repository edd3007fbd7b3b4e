/**
 * CONTRACT.md sections 11 and 14, "Bounded by rate", through the website handler as a browser sends to
 * it: per browser key at most N rejection records a UTC minute, the rest counted on one `suppressed`
 * record; and `captcha_unavailable` records bounded apart, their own N, so a flood of junk 422s on the
 * public key cannot crowd out visitors whose challenge could not be checked.
 *
 * The bound is per calendar minute of the records' own time. A scenario that straddles a minute's end
 * is run again with a new key (each scenario takes well under a minute, so the second fits).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { StoredRejection } from '../../shared/domain/ports/rejections.ts';
import { challengesAgainst, fakeSiteverify, type FakeSiteverify } from '../support/fake-siteverify.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

const SECRET = 'rate-bound-captcha-secret';
const SHOP = 'https://shop.example';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const PER_MINUTE = 3;

let provider: FakeSiteverify;
let service: TestService;
let accounts = 0;

beforeAll(async () => {
  provider = await fakeSiteverify(SECRET);
  service = await testService({ challenges: challengesAgainst(provider, { timeoutMs: 500 }), rejectionRecordsPerMinute: PER_MINUTE });
});

afterAll(async () => {
  await provider.close();
});

const minuteNow = () => new Date().toISOString().slice(0, 16);

/**
 * Runs `scenario` with a fresh account and challenge key until one run starts and ends in the same UTC
 * minute, and answers that run's records.
 */
const withinOneMinute = async (scenario: (post: (body: Record<string, unknown>) => ReturnType<TestService['call']>) => Promise<void>): Promise<StoredRejection[]> => {
  for (;;) {
    const accountId = `acc-rb-${++accounts}`;
    await service.seedAccount({ id: accountId, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    const { key } = await service.issueScopedKey({ accountId, origins: [SHOP], captcha: { provider: 'turnstile', secret: SECRET } });
    const started = minuteNow();
    await scenario((body) => service.call('website', { apiKey: key, body, headers: { origin: SHOP } }));
    if (minuteNow() === started) return service.repository.rejections.listRejections(accountId);
  }
};

const junk = { name: 'x' };

describe('the minute bound of a browser key, through the handler', () => {
  it('stores N refusals of a minute, answers the rest as usual, and counts them on one suppressed record', async () => {
    const records = await withinOneMinute(async (post) => {
      for (let i = 0; i < PER_MINUTE + 2; i++) expect((await post(junk)).status).toBe(422);
    });
    expect(records.filter((record) => record.reason === 'validation')).toHaveLength(PER_MINUTE);
    expect(records.filter((record) => record.reason === 'suppressed')).toEqual([expect.objectContaining({ count: 2, reasons: { validation: 2 } })]);
  });
});

describe('captcha_unavailable records, bounded apart', () => {
  it('are stored after a flood of junk 422s has spent the key’s minute', async () => {
    const visitor = validBody('website', project, { captcha_token: 'server-error' });
    const records = await withinOneMinute(async (post) => {
      for (let i = 0; i < PER_MINUTE + 2; i++) expect((await post(junk)).status).toBe(422);
      expect((await post(visitor)).status).toBe(200);
    });
    expect(records.filter((record) => record.reason === 'captcha_unavailable')).toEqual([
      expect.objectContaining({ submission: expect.objectContaining({ mobile_number: visitor.mobile_number }) }),
    ]);
    expect(records.filter((record) => record.reason === 'suppressed')).toEqual([expect.objectContaining({ count: 2, reasons: { validation: 2 } })]);
  });

  it('have a bound of their own: N a minute, the rest counted on the key’s one suppressed record', async () => {
    const records = await withinOneMinute(async (post) => {
      for (let i = 0; i < PER_MINUTE + 1; i++) expect((await post(validBody('website', project, { captcha_token: 'server-error' }))).status).toBe(200);
      expect((await post(junk)).status).toBe(422);
    });
    expect(records.filter((record) => record.reason === 'captcha_unavailable')).toHaveLength(PER_MINUTE);
    expect(records.filter((record) => record.reason === 'validation')).toHaveLength(1);
    expect(records.filter((record) => record.reason === 'suppressed')).toEqual([expect.objectContaining({ count: 1, reasons: { captcha_unavailable: 1 } })]);
  });
});
