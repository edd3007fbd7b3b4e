/**
 * CONTRACT.md section 11: a quarantine record holds the submission's fields under their request names,
 * all side by side (issue 37): `profession` and `location` beside `name` and `mobile_number`, the
 * website's sub source as `sub_source` (not the domain's `subSource`), nothing nested under `details`.
 * Records written before (with `subSource`, or with the fields under `details`) are still read and
 * released as they are, until they expire: no migration.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { adminApi } from '../support/admin-handler.ts';
import { challengesAgainst, fakeSiteverify, type FakeSiteverify } from '../support/fake-siteverify.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

const SHOP = 'https://shop.example';
const SECRET = '0x4AAAAAAAtestsecret-never-logged';
const ACCOUNT = 'acc-names';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
/** The website's optional fields a person fills in. */
const optional = { profession: 'Architect', location: 'Pune', notes: 'Call after 6', utm_source: 'newsletter' };

let provider: FakeSiteverify;
let service: TestService;
let admin: ReturnType<typeof adminApi>;
let env: NodeJS.ProcessEnv;
let key: string;
let challengeKey: string;

beforeAll(async () => {
  provider = await fakeSiteverify(SECRET);
  service = await testService({ configCacheTtlSeconds: 0, challenges: challengesAgainst(provider) });
  admin = adminApi(service);
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
  await service.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page', 'Old landing page'] });
  key = (await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP] })).key;
  challengeKey = (await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP], captcha: { provider: 'turnstile', secret: SECRET } })).key;
});

afterAll(async () => {
  await provider.close();
});

const cli = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

/** The newest record of a reason, as `admin rejections --json` prints it and as the admin API answers it (the same). */
const newest = async (reason: string) => {
  const printed = await cli('rejections', '--account', ACCOUNT, '--reason', reason, '--limit', '1', '--json');
  expect(printed.code).toBe(0);
  const [record] = JSON.parse(printed.stdout);
  const listed = await admin('GET', `/admin/v1/accounts/${ACCOUNT}/rejections?reason=${reason}&limit=1`);
  expect(listed.body.items).toEqual([record]);
  return record;
};

/** A submission as the record should hold it: the endpoint, and every field the body sent, under its name. */
const flat = (body: Record<string, unknown>) => {
  const { company_website: _trap, captcha_token: _token, ...fields } = body;
  return { source: 'website', ...fields };
};

const releaseOf = (id: string) => admin('POST', `/admin/v1/accounts/${ACCOUNT}/rejections/${id}/release`);

/** A lead without what differs from one release to the next. */
const sameLead = ({ id: _id, created_at: _at, mobile_number: _mobile, ...lead }: Record<string, unknown>) => lead;

describe('a quarantine record’s submission', () => {
  it('of a honeypot catch holds every field under its request name: profession and location beside name and mobile_number, nothing under details', async () => {
    const body = validBody('website', project, { ...optional, email: 'asha@example.com', company_website: 'https://autofill.example' });
    expect((await service.call('website', { apiKey: key, body, headers: { origin: SHOP } })).status).toBe(200);
    const record = await newest('honeypot');
    expect(record.submission).toEqual(flat(body));
    expect(record.submission).toMatchObject({ name: body.name, mobile_number: body.mobile_number, profession: 'Architect', location: 'Pune' });
    expect(record.submission).not.toHaveProperty('details');
  });

  it('of a challenge that failed has the same shape', async () => {
    const body = validBody('website', project, { ...optional, captcha_token: 'fail' });
    expect((await service.call('website', { apiKey: challengeKey, body, headers: { origin: SHOP } })).status).toBe(403);
    const record = await newest('captcha_failed');
    expect(record.submission).toEqual(flat(body));
    expect(record.submission).toMatchObject({ profession: 'Architect', location: 'Pune' });
  });

  it('names the website’s sub source sub_source, as the request did, and its release stores the lead of those fields', async () => {
    const body = validBody('website', project, { ...optional, company_website: 'https://autofill.example' });
    expect((await service.call('website', { apiKey: key, body, headers: { origin: SHOP } })).status).toBe(200);
    const record = await newest('honeypot');
    expect(record.submission).toMatchObject({ sub_source: 'Skyline landing page', mobile_number: body.mobile_number });
    expect(record.submission).not.toHaveProperty('subSource');
    const released = await releaseOf(record.id);
    expect(released).toMatchObject({ status: 200, body: { data: { sub_source: 'Skyline landing page', mobile_number: body.mobile_number, ...optional } } });
  });
});

describe('a quarantine record written before', () => {
  /** A record stored as the service stored it then (the test writes the item itself). */
  const writtenBefore = async (submission: Record<string, unknown>) => {
    const requestId = `req-legacy-${submission.mobile_number}`;
    await service.repository.rejections.record(ACCOUNT, {
      at: new Date().toISOString(),
      requestId,
      endpoint: 'website',
      reason: 'honeypot',
      message: 'company_website was filled',
      fields: {},
      submission: submission as never,
    });
    return (await service.repository.rejections.listRejections(ACCOUNT)).find((r) => r.requestId === requestId)!;
  };

  it('with subSource is still released with its sub source', async () => {
    const mobile = uniqueMobile();
    const record = await writtenBefore({
      source: 'website',
      subSource: { kind: 'website', name: 'Old landing page' },
      name: 'Asha Verma',
      mobile_number: mobile,
      projectID: 'PRJ-1',
      campaignID: 'CMP-1',
      details: {},
    });
    const released = await releaseOf(record.id);
    expect(released).toMatchObject({ status: 200, body: { data: { sub_source: 'Old landing page', mobile_number: mobile } } });
  });

  it('with its fields under details is still released, into the same lead as a record of today’s shape', async () => {
    const parts = { source: 'website', sub_source: 'Old landing page', name: 'Asha Verma', email: 'asha@example.com', projectID: 'PRJ-1', campaignID: 'CMP-1' };
    const before = await writtenBefore({ ...parts, mobile_number: uniqueMobile(), details: optional });
    const today = await writtenBefore({ ...parts, mobile_number: uniqueMobile(), ...optional });
    const [fromBefore, fromToday] = [await releaseOf(before.id), await releaseOf(today.id)];
    expect(fromBefore).toMatchObject({ status: 200, body: { data: { mobile_number: before.submission!.mobile_number, sub_source: 'Old landing page', ...optional } } });
    expect(fromBefore.body.data).not.toHaveProperty('details');
    expect(fromToday.status).toBe(200);
    expect(sameLead(fromBefore.body.data)).toEqual(sameLead(fromToday.body.data));
  });
});
