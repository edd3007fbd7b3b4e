/**
 * CONTRACT.md section 11, "Reading the log": the admin API pages an account's rejection log newest
 * first, a bounded number of bounded queries per page, and following `next` yields every record once.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Rejection } from '../../shared/domain/ports/rejections.ts';
import { adminApi } from '../support/admin-handler.ts';
import { testService, type TestService } from '../support/service.ts';

let service: TestService;
let admin: ReturnType<typeof adminApi>;
const ACCOUNT = 'acc-paging';
const RECORDS = 330;
const reasons = ['validation', 'project_not_found', 'duplicate_lead'];

const rejection = (i: number, at: Date): Rejection => ({
  at: at.toISOString(),
  requestId: `req-${i}`,
  endpoint: 'portala',
  reason: reasons[i % reasons.length]!,
  message: 'Project not found',
  fields: { n: i },
});

beforeAll(async () => {
  service = await testService();
  admin = adminApi(service);
  await service.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] } });
  const start = Date.now() - 60_000;
  // Several records share a millisecond: their order is still the order they were made in.
  for (let i = 0; i < RECORDS; i += 10) {
    await Promise.all(Array.from({ length: 10 }, (_, j) => service.repository.rejections.record(ACCOUNT, rejection(i + j, new Date(start + Math.floor((i + j) / 3))))));
  }
}, 120_000);

const path = (query: string) => `/admin/v1/accounts/${ACCOUNT}/rejections${query}`;

/** Follows `next` to the end; returns every page. */
const allPages = async (query: string) => {
  const pages: { items: Record<string, any>[]; next: string | null }[] = [];
  let cursor: string | null = null;
  do {
    const answer = await admin('GET', path(`?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
    expect(answer.status).toBe(200);
    pages.push(answer.body);
    cursor = answer.body.next;
  } while (cursor);
  return pages;
};

describe('paging the rejection log', () => {
  it('yields each of a few hundred records exactly once, newest first, in pages of the limit', async () => {
    const pages = await allPages('limit=37');
    const items = pages.flatMap((page) => page.items);
    expect(pages.slice(0, -1).every((page) => page.items.length === 37)).toBe(true);
    expect(items).toHaveLength(RECORDS);
    expect(new Set(items.map((item) => item.id)).size).toBe(RECORDS);
    const keys = items.map((item) => `${item.created_at}#${item.id}`);
    expect(keys).toEqual([...keys].sort().reverse());
    expect(pages.at(-1)!.next).toBeNull();
  });

  it('pages one reason from its index, every record of it once', async () => {
    const items = (await allPages('limit=50&reason=project_not_found')).flatMap((page) => page.items);
    expect(items).toHaveLength(RECORDS / 3);
    expect(new Set(items.map((item) => item.id)).size).toBe(RECORDS / 3);
    expect(items.every((item) => item.reason === 'project_not_found')).toBe(true);
  });

  it('reads a page with one bounded query per shard, whatever the size of the log', async () => {
    service.roundTrips.reset();
    const answer = await admin('GET', path('?limit=200'));
    expect(answer.body.items).toHaveLength(200);
    const queries = service.roundTrips.commands().filter((command) => command === 'QueryCommand');
    // The account's own read, one query per shard, and one of the partition from before the shards.
    expect(queries.length).toBeLessThanOrEqual(1 + 8 + 1);
  });

  it('gives 50 records by default', async () => {
    expect((await admin('GET', path(''))).body.items).toHaveLength(50);
  });

  it.each(['0', '201', '2.5', 'x', ''])('answers 400 to limit=%j', async (limit) => {
    expect(await admin('GET', path(`?limit=${limit}`))).toMatchObject({ status: 400, body: { status: false, message: 'limit must be a whole number from 1 to 200' } });
  });

  it('answers 400 to a cursor it did not give', async () => {
    for (const cursor of ['x', 'r1.e30', 'r1.' + Buffer.from(JSON.stringify({ sk: '2026-01-01T00:00:00.000Z#X', reason: 'duplicate_lead' })).toString('base64url')]) {
      expect(await admin('GET', path(`?cursor=${encodeURIComponent(cursor)}`))).toMatchObject({ status: 400, body: { status: false, message: 'cursor is not one this service gave: start again without it' } });
    }
  });

  it('answers 404 for an account that does not exist', async () => {
    expect(await admin('GET', '/admin/v1/accounts/acc-none/rejections')).toMatchObject({ status: 404, body: { message: 'Account not found' } });
  });
});

describe('one reason name per cause (CONTRACT.md section 20)', () => {
  const FORMER = 'acc-paging-former';
  beforeAll(async () => {
    await service.seedAccount({ id: FORMER, projects: { 'PRJ-1': ['CMP-1'] } });
    const start = Date.now() - 30_000;
    // Records stored before the reason had its one name, beside today's and another reason's.
    const stored = ['field_validation', 'validation', 'field_validation', 'honeypot', 'validation', 'field_validation'];
    for (const [i, reason] of stored.entries()) {
      await service.repository.rejections.record(FORMER, { ...rejection(i, new Date(start + i)), requestId: `former-${i}`, reason });
    }
  });

  const formerPath = (query: string) => `/admin/v1/accounts/${FORMER}/rejections${query}`;

  it('reads a record stored as field_validation as validation', async () => {
    const { body } = await admin('GET', formerPath(''));
    expect(body.items.map((item: { reason: string }) => item.reason)).toEqual(['validation', 'validation', 'honeypot', 'validation', 'validation', 'validation']);
  });

  it.each(['validation', 'field_validation'])('lists records of both names, once each and newest first, with reason=%s', async (reason) => {
    const first = await admin('GET', formerPath(`?reason=${reason}&limit=3`));
    const second = await admin('GET', formerPath(`?reason=${reason}&limit=3&cursor=${encodeURIComponent(first.body.next)}`));
    const items = [...first.body.items, ...second.body.items];
    expect(items.map((item: { requestId: string }) => item.requestId)).toEqual(['former-5', 'former-4', 'former-2', 'former-1', 'former-0']);
    expect(items.every((item: { reason: string }) => item.reason === 'validation')).toBe(true);
    expect(second.body.next).toBeNull();
  });
});
