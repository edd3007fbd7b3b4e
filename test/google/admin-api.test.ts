/**
 * Connecting Google Ads lead forms through the admin API (CONTRACT.md sections 9 and 10): connecting,
 * reconnecting, rotating and removing, each seen by the webhook, through the same domain module as the
 * admin CLI.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { adminCall } from '../support/admin-handler.ts';
import { uniqueMobile } from '../support/service.ts';
import { googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';

let google: GoogleTestService;
let handler: ReturnType<typeof adminHandler>;
const base = '/admin/v1/accounts/acc-api';

beforeAll(async () => {
  // TTL 0: the webhook sees each change at once, so each test sees what the store holds.
  google = await googleTestService({ configCacheTtlSeconds: 0 });
  await google.seedAccount({ id: 'acc-api', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  await google.seedAccount({ id: 'acc-rival', projects: { 'PRJ-1': ['CMP-1'] } });
  handler = adminHandler(adminRuntime(google.repository, () => undefined));
});

const admin = (method: string, path: string, body?: unknown) => adminCall(handler, method, path, body);
const deliver = (formId: string, key: string) => google.deliver({ formId, key, columns: standardColumns(uniqueMobile()) });

describe('PUT /accounts/{accountId}/google-forms/{formId}', () => {
  it('connects a new form: 201 with its key, which the webhook then takes', async () => {
    const answer = await admin('PUT', `${base}/google-forms/45000000001`, { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ form_id: '45000000001', account_id: 'acc-api', project_id: 'PRJ-1', campaign_id: 'CMP-1', key: expect.stringMatching(/^gk_[\w-]{32}$/) });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expect((await deliver('45000000001', answer.body.key)).status).toBe(200);
  });

  it('reconnects a form of the account: 200, no key, the same key keeps working, leads go to the new project', async () => {
    const { body } = await admin('PUT', `${base}/google-forms/45000000002`, { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    const again = await admin('PUT', `${base}/google-forms/45000000002`, { projectId: 'PRJ-2', campaignId: 'CMP-2' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ form_id: '45000000002', account_id: 'acc-api', project_id: 'PRJ-2', campaign_id: 'CMP-2' });
    expect((await deliver('45000000002', body.key)).status).toBe(200);
    expect(await google.leadsOf('acc-api', ['PRJ-2'])).toEqual([expect.objectContaining({ google_form_id: '45000000002', projectID: 'PRJ-2', campaignID: 'CMP-2' })]);
  });

  it('refuses a form connected to another account with 409, changing nothing', async () => {
    const rival = await admin('PUT', '/admin/v1/accounts/acc-rival/google-forms/45000000003', { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    const answer = await admin('PUT', `${base}/google-forms/45000000003`, { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(answer).toMatchObject({ status: 409, body: { status: false, message: 'Form is connected to another account' } });
    expect((await deliver('45000000003', rival.body.key)).status).toBe(200);
    expect(await google.leadsOf('acc-rival')).toHaveLength(1);
  });

  it.each([
    ['an unknown account', '/admin/v1/accounts/acc-none/google-forms/45000000004', { projectId: 'PRJ-1', campaignId: 'CMP-1' }, 'Account not found'],
    ['an unknown project', `${base}/google-forms/45000000004`, { projectId: 'PRJ-9', campaignId: 'CMP-1' }, 'Project not found'],
    ['a campaign of another project', `${base}/google-forms/45000000004`, { projectId: 'PRJ-1', campaignId: 'CMP-2' }, 'Campaign not found'],
  ])('answers 404 for %s, connecting nothing', async (_case, path, body, message) => {
    expect(await admin('PUT', path, body)).toMatchObject({ status: 404, body: { status: false, message } });
    expect((await admin('GET', `${base}/google-forms`)).body.map((form: { form_id: string }) => form.form_id)).not.toContain('45000000004');
  });

  it('answers 400 naming each problem for a form id that is not digits, a missing campaign and an unknown field', async () => {
    const answer = await admin('PUT', `${base}/google-forms/form-1`, { projectId: 'PRJ-1', colour: 'red' });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.errors).sort()).toEqual(['campaignId', 'colour', 'formId']);
  });
});

describe('GET, rotate-key and DELETE', () => {
  it('lists the forms with where their leads go, never a key or a hash', async () => {
    await admin('PUT', `${base}/google-forms/45000000010`, { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    const answer = await admin('GET', `${base}/google-forms`);
    expect(answer.status).toBe(200);
    expect(answer.body).toContainEqual({ form_id: '45000000010', project_id: 'PRJ-1', campaign_id: 'CMP-1', connected_at: expect.any(String) });
    expect(JSON.stringify(answer.body)).not.toMatch(/gk_|key/);
  });

  it('rotates a key: 201 with the new key, which works; the old one answers 401', async () => {
    const { body } = await admin('PUT', `${base}/google-forms/45000000011`, { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    const rotated = await admin('POST', `${base}/google-forms/45000000011/rotate-key`);
    expect(rotated.status).toBe(201);
    expect(rotated.body).toEqual({ form_id: '45000000011', account_id: 'acc-api', project_id: 'PRJ-1', campaign_id: 'CMP-1', key: expect.any(String) });
    expect(rotated.body.key).not.toBe(body.key);
    expect((await deliver('45000000011', body.key)).status).toBe(401);
    expect((await deliver('45000000011', rotated.body.key)).status).toBe(200);
  });

  it('removes a form: 204, and its deliveries answer 401', async () => {
    const { body } = await admin('PUT', `${base}/google-forms/45000000012`, { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    const removed = await admin('DELETE', `${base}/google-forms/45000000012`);
    expect(removed.status).toBe(204);
    expect((await deliver('45000000012', body.key)).status).toBe(401);
    expect((await admin('GET', `${base}/google-forms`)).body.map((form: { form_id: string }) => form.form_id)).not.toContain('45000000012');
  });

  it.each([
    ['DELETE', ''],
    ['POST', '/rotate-key'],
  ])("answers %s of another account's form, or of no form, 404 Form not found", async (method, suffix) => {
    await admin('PUT', '/admin/v1/accounts/acc-rival/google-forms/45000000013', { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    for (const formId of ['45000000013', '45000009999', 'not-a-form']) {
      expect(await admin(method, `${base}/google-forms/${formId}${suffix}`)).toMatchObject({ status: 404, body: { status: false, message: 'Form not found' } });
    }
    expect((await admin('GET', '/admin/v1/accounts/acc-rival/google-forms')).body.map((form: { form_id: string }) => form.form_id)).toContain('45000000013');
  });
});
