/**
 * CONTRACT.md section 11, "Quarantine, not deletion": a honeypot catch keeps the validated submission
 * whole, and a person releases it into a lead through the duplicate rules as they stand at the release,
 * once, by the admin API and the admin CLI.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { adminApi } from '../support/admin-handler.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let admin: ReturnType<typeof adminApi>;
let env: NodeJS.ProcessEnv;
const SHOP = 'https://shop.example';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const keys: Record<string, string> = {};

const accountFor = (setting: DuplicateSetting) => `acc-q-${setting}`;

beforeAll(async () => {
  service = await testService({ configCacheTtlSeconds: 0 });
  admin = adminApi(service);
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
  for (const setting of ['ignore', 'create', 'merge'] as const) {
    await service.seedAccount({ id: accountFor(setting), duplicateSetting: setting, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    keys[setting] = (await service.issueScopedKey({ accountId: accountFor(setting), origins: [SHOP] })).key;
  }
});

const post = (setting: DuplicateSetting, body: Record<string, unknown>) => service.call('website', { apiKey: keys[setting], body, headers: { origin: SHOP } });

/** A submission caught by the trap; returns its quarantine record. */
const caught = async (setting: DuplicateSetting, overrides: Record<string, unknown> = {}) => {
  const body = validBody('website', project, { email: 'asha@example.com', notes: 'Call after 6', company_website: 'https://autofill.example', ...overrides });
  const answer = await post(setting, body);
  expect(answer.status).toBe(200);
  const [record] = (await service.repository.rejections.page(accountFor(setting), { limit: 1, reason: 'honeypot' })).items;
  expect(record!.requestId).toBe(answer.headers['x-request-id']);
  return { body, record: record! };
};

const leadsOf = (setting: DuplicateSetting) => service.repository.leadArchive.listLeads(accountFor(setting), ['PRJ-1']);
const releasePath = (setting: DuplicateSetting, id: string) => `/admin/v1/accounts/${accountFor(setting)}/rejections/${id}/release`;

const cli = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

describe('a honeypot catch is quarantined', () => {
  it('keeps the validated submission whole, the trap value cut to 200 characters, with an id and created_at', async () => {
    const { body, record } = await caught('ignore', { company_website: 'x'.repeat(500) });
    expect(record).toMatchObject({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      created_at: record.at,
      reason: 'honeypot',
      submission: { source: 'website', name: body.name, mobile_number: body.mobile_number, email: 'asha@example.com', projectID: 'PRJ-1', campaignID: 'CMP-1', notes: 'Call after 6' },
    });
    expect(Array.from(record.fields.company_website as string)).toHaveLength(200);
    expect(await service.repository.rejections.find(accountFor('ignore'), record.id)).toEqual(record);
  });
});

describe('release by the admin API', () => {
  it('stores a lead whose created_at is the release time, answered in the lead envelope, and only once', async () => {
    const { body, record } = await caught('ignore');
    const before = new Date().toISOString();
    const answer = await admin('POST', releasePath('ignore', record.id));
    expect(answer).toMatchObject({ status: 200, body: { status: true, message: 'Lead created successfully', data: { mobile_number: body.mobile_number, notes: 'Call after 6', is_repeated: false } } });
    expect(answer.body.data.created_at >= before).toBe(true);
    expect(answer.headers['x-request-id']).toMatch(/\S/);
    expect((await leadsOf('ignore')).filter((lead) => lead.mobile_number === body.mobile_number)).toEqual([answer.body.data]);
    expect(await admin('POST', releasePath('ignore', record.id))).toMatchObject({ status: 409, body: { status: false, message: 'Already released' } });
    expect(await service.repository.rejections.find(accountFor('ignore'), record.id)).toMatchObject({ released_at: answer.body.data.created_at, lead_id: answer.body.data.id });
  });

  it('stores one lead when two releases run at once', async () => {
    const { body, record } = await caught('create');
    const answers = await Promise.all([admin('POST', releasePath('create', record.id)), admin('POST', releasePath('create', record.id))]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect((await leadsOf('create')).filter((lead) => lead.mobile_number === body.mobile_number)).toHaveLength(1);
  });

  it('answers 422 Lead already exists under ignore when the person sent the lead meanwhile, and can release later', async () => {
    const mobile = uniqueMobile();
    const { record } = await caught('ignore', { mobile_number: mobile });
    expect((await post('ignore', validBody('website', project, { mobile_number: mobile }))).status).toBe(200);
    expect(await admin('POST', releasePath('ignore', record.id))).toMatchObject({ status: 422, body: { status: false, message: 'Lead already exists' } });
    expect((await leadsOf('ignore')).filter((lead) => lead.mobile_number === mobile)).toHaveLength(1);
  });

  it.each([
    ['create', null],
    ['merge', 'original'],
  ] as const)('stores a repeat under %s when the original exists', async (setting, parent) => {
    const mobile = uniqueMobile();
    const { record } = await caught(setting, { mobile_number: mobile });
    const original = await post(setting, validBody('website', project, { mobile_number: mobile }));
    const answer = await admin('POST', releasePath(setting, record.id));
    expect(answer).toMatchObject({ status: 200, body: { data: { is_repeated: true, parent_lead_id: parent ? original.body.data.id : null } } });
    expect((await leadsOf(setting)).filter((lead) => lead.mobile_number === mobile)).toHaveLength(2);
  });

  it('answers 409 Not a quarantined submission for another reason, and 404 for an unknown id', async () => {
    expect((await service.call('website', { apiKey: keys.ignore, body: validBody('website', { projectID: 'PRJ-9', campaignID: 'CMP-1' }), headers: { origin: SHOP } })).status).toBe(422);
    const [refusal] = (await service.repository.rejections.page(accountFor('ignore'), { limit: 1, reason: 'project_not_found' })).items;
    expect(await admin('POST', releasePath('ignore', refusal!.id))).toMatchObject({ status: 409, body: { message: 'Not a quarantined submission' } });
    expect(await admin('POST', releasePath('ignore', '01ARZ3NDEKTSV4RRFFQ69G5FAV'))).toMatchObject({ status: 404, body: { message: 'Rejection not found' } });
    expect(await admin('POST', releasePath('ignore', 'not-an-id'))).toMatchObject({ status: 404, body: { message: 'Rejection not found' } });
    expect(await admin('POST', `/admin/v1/accounts/acc-missing/rejections/${refusal!.id}/release`)).toMatchObject({ status: 404, body: { message: 'Account not found' } });
  });
});

describe('admin release', () => {
  it('prints the lead and exits 0, then exits 1 with Already released', async () => {
    const { body, record } = await caught('merge');
    const released = await cli('release', '--account', accountFor('merge'), '--rejection-id', record.id, '--json');
    expect(released).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(released.stdout)).toMatchObject({ mobile_number: body.mobile_number, source: 'website' });
    expect(await cli('release', '--account', accountFor('merge'), '--rejection-id', record.id)).toEqual({ code: 1, stdout: '', stderr: 'admin release: Already released\n' });
  });

  it('exits 1 for an unknown id and 2 for missing arguments', async () => {
    expect(await cli('release', '--account', accountFor('merge'), '--rejection-id', '01ARZ3NDEKTSV4RRFFQ69G5FAV')).toMatchObject({ code: 1, stderr: 'admin release: Rejection not found\n' });
    expect((await cli('release', '--account', accountFor('merge'))).code).toBe(2);
  });
});
