/**
 * CONTRACT.md section 11: a quarantine record holds the submission's fields under their request names,
 * the website's sub source as `sub_source` (not the domain's `subSource`). Records written before
 * (with `subSource`) are still read and released as they are, until they expire: no migration.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { adminApi } from '../support/admin-handler.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

const SHOP = 'https://shop.example';
const ACCOUNT = 'acc-names';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

let service: TestService;
let admin: ReturnType<typeof adminApi>;
let key: string;

beforeAll(async () => {
  service = await testService({ configCacheTtlSeconds: 0 });
  admin = adminApi(service);
  await service.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page', 'Old landing page'] });
  key = (await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP] })).key;
});

describe('a quarantine record’s submission', () => {
  it('names the website’s sub source sub_source, as the request did, and its release stores it as the lead’s sub_source', async () => {
    const body = validBody('website', project, { company_website: 'https://autofill.example', notes: 'Call after 6' });
    expect((await service.call('website', { apiKey: key, body, headers: { origin: SHOP } })).status).toBe(200);
    const listed = await admin('GET', `/admin/v1/accounts/${ACCOUNT}/rejections?reason=honeypot&limit=1`);
    const [record] = listed.body.items;
    expect(record.submission).toMatchObject({ sub_source: 'Skyline landing page', mobile_number: body.mobile_number, details: { notes: 'Call after 6' } });
    expect(record.submission).not.toHaveProperty('subSource');
    const released = await admin('POST', `/admin/v1/accounts/${ACCOUNT}/rejections/${record.id}/release`);
    expect(released).toMatchObject({ status: 200, body: { data: { sub_source: 'Skyline landing page', mobile_number: body.mobile_number } } });
  });

  it('written before, with subSource, is still released with its sub source', async () => {
    const mobile = uniqueMobile();
    await service.repository.rejections.record(ACCOUNT, {
      at: new Date().toISOString(),
      requestId: 'req-legacy',
      endpoint: 'website',
      reason: 'honeypot',
      message: 'company_website was filled',
      fields: {},
      // The shape such records were stored in.
      submission: {
        source: 'website',
        subSource: { kind: 'website', name: 'Old landing page' },
        name: 'Asha Verma',
        mobile_number: mobile,
        projectID: 'PRJ-1',
        campaignID: 'CMP-1',
        details: {},
      } as never,
    });
    const record = (await service.repository.rejections.listRejections(ACCOUNT)).find((r) => r.submission?.mobile_number === mobile)!;
    const released = await admin('POST', `/admin/v1/accounts/${ACCOUNT}/rejections/${record.id}/release`);
    expect(released).toMatchObject({ status: 200, body: { data: { sub_source: 'Old landing page', mobile_number: mobile } } });
  });
});
