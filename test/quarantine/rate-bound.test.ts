/**
 * CONTRACT.md section 11, "Bounded by rate, not only by size": per browser key at most N rejection
 * records a calendar minute (UTC); past it, one `suppressed` counter per key and minute, one small
 * write per suppressed request. Secret keys keep every record. The clock is the record's own time.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Rejection } from '../../shared/domain/ports/rejections.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { DynamoDbRejectionArchive } from '../../shared/dynamodb/rejection-archive.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let log: DynamoDbRejectionArchive;
const PER_MINUTE = 3;

const refusal = (at: string, keyId: string, reason = 'validation', browserKey = true): Rejection => ({
  at,
  requestId: `req-${Math.random()}`,
  endpoint: 'website',
  reason,
  message: 'name is required',
  fields: { name: ['name is required'] },
  key_id: keyId,
  ...(browserKey && { browserKey: true }),
});

beforeAll(async () => {
  service = await testService();
  log = new DynamoDbRejectionArchive(createDocumentClient({ client: service.client }), service.tables.leads, { recordsPerMinute: PER_MINUTE });
  for (const account of ['acc-rate', 'acc-rate-2', 'acc-secret']) await service.seedAccount({ id: account, projects: { 'PRJ-1': ['CMP-1'] } });
});

/** The start of a calendar minute some minutes ago (records older than 30 days are not listed). */
const minute = (ago: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 - ago * 60_000);
/** A time in that minute, `ms` after its start. */
const inMinute = (start: Date, ms: number) => new Date(start.getTime() + ms).toISOString();

const all = async (accountId: string) => (await log.page(accountId, { limit: 200 })).items;

describe('the rate bound of a browser key', () => {
  it('stores N records in a minute, counts the rest on one suppressed item, and starts again at the next minute', async () => {
    const reasons = ['validation', 'honeypot', 'validation', 'honeypot', 'duplicate_lead', 'honeypot'];
    const start = minute(10);
    const next = new Date(start.getTime() + 60_000);
    // The last second of the minute...
    for (const [i, reason] of reasons.entries()) await log.record('acc-rate', refusal(inMinute(start, 59_100 + i), 'key_a', reason));
    // ...and the first millisecond of the next calendar minute: the bound starts again.
    await log.record('acc-rate', refusal(next.toISOString(), 'key_a'));
    // Another key has a bound of its own.
    await log.record('acc-rate', refusal(inMinute(start, 59_900), 'key_b'));

    const records = await log.listRejections('acc-rate');
    const stored = records.filter((r) => r.reason !== 'suppressed');
    expect(stored.map((r) => [r.key_id, r.created_at])).toEqual([
      ['key_a', inMinute(start, 59_100)],
      ['key_a', inMinute(start, 59_101)],
      ['key_a', inMinute(start, 59_102)],
      ['key_b', inMinute(start, 59_900)],
      ['key_a', next.toISOString()],
    ]);
    const suppressed = records.filter((r) => r.reason === 'suppressed');
    expect(suppressed).toEqual([
      expect.objectContaining({ key_id: 'key_a', created_at: start.toISOString(), count: 3, reasons: { honeypot: 2, duplicate_lead: 1 }, id: expect.stringMatching(/^[0-9A-Z]{26}$/) }),
    ]);
    expect((await log.page('acc-rate', { limit: 10, reason: 'suppressed' })).items).toEqual(suppressed);
  });

  it('writes one counter item per suppressed request, and nothing else', async () => {
    const start = minute(5);
    for (let i = 0; i < PER_MINUTE + 1; i++) await log.record('acc-rate-2', refusal(inMinute(start, i * 1000), 'key_c'));
    service.roundTrips.reset();
    await log.record('acc-rate-2', refusal(inMinute(start, 30_000), 'key_c'));
    expect(service.roundTrips.commands()).toEqual(['UpdateItemCommand']);
    expect((await all('acc-rate-2')).find((r) => r.reason === 'suppressed')).toMatchObject({ count: 2 });
  });

  it('keeps every record of a secret key', async () => {
    const start = minute(3);
    for (let i = 0; i < PER_MINUTE * 2; i++) await log.record('acc-secret', refusal(inMinute(start, i * 1000), 'key_s', 'validation', false));
    const records = await all('acc-secret');
    expect(records).toHaveLength(PER_MINUTE * 2);
    expect(records.some((r) => r.reason === 'suppressed')).toBe(false);
  });
});

describe('a stored lead with a browser key', () => {
  it('costs no request for the bound', async () => {
    await service.seedAccount({ id: 'acc-rate-lead', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    const { key } = await service.issueScopedKey({ accountId: 'acc-rate-lead', origins: ['https://shop.example'] });
    const post = () => service.call('website', { apiKey: key, body: validBody('website', { projectID: 'PRJ-1', campaignID: 'CMP-1' }), headers: { origin: 'https://shop.example' } });
    expect((await post()).status).toBe(200);
    service.roundTrips.reset();
    expect((await post()).status).toBe(200);
    expect(service.roundTrips.commands()).toEqual(['TransactWriteItemsCommand']);
  });
});
