/**
 * Portal logins through the admin API (CONTRACT.md section 17): PUT (201 new, 200 changed, the
 * credential required when new and never answered), GET, DELETE (204; 404 `Portal login not found`),
 * POST .../pull, with 404 for an unknown project and 409 for another account's login.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fakeNinetyNineAcres, istText } from '../support/fake-portals.ts';
import { adminApi } from '../support/admin-handler.ts';
import { portalTestService, type PortalTestService } from '../support/portal-service.ts';
import { uniqueMobile } from '../support/service.ts';

let portal: Awaited<ReturnType<typeof fakeNinetyNineAcres>>;
let service: PortalTestService;
let api: ReturnType<typeof adminApi>;
const before = process.env.PORTAL_99ACRES_URL;

beforeAll(async () => {
  portal = await fakeNinetyNineAcres();
  // The admin function reads the portals' URLs from its environment, as deployed.
  process.env.PORTAL_99ACRES_URL = portal.url;
  service = await portalTestService({ baseUrls: { '99acres': portal.url } });
  api = adminApi(service);
  await service.seedAccount({ id: 'acc-api', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  await service.seedAccount({ id: 'acc-api-other', projects: { 'PRJ-1': ['CMP-1'] } });
});
afterAll(async () => {
  if (before === undefined) delete process.env.PORTAL_99ACRES_URL;
  else process.env.PORTAL_99ACRES_URL = before;
  await portal.close();
});

const path = (login: string, account = 'acc-api') => `/admin/v1/accounts/${account}/portals/99acres/${login}`;

describe('PUT /accounts/{accountId}/portals/{portal}/{login}', () => {
  it('connects a login (201), changes it (200) keeping its watermark, and never answers the credential', async () => {
    const first = await api('PUT', path('api-one'), { projectId: 'PRJ-1', campaignId: 'CMP-1', credential: 'api-$ecret', map: { '42': { projectId: 'PRJ-2', campaignId: 'CMP-2' } } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ portal: '99acres', login: 'api-one', project_id: 'PRJ-1', map: { '42': { project_id: 'PRJ-2', campaign_id: 'CMP-2' } }, state: 'ok', failing: null });
    const again = await api('PUT', path('api-one'), { projectId: 'PRJ-2', campaignId: 'CMP-2' });
    expect(again).toMatchObject({ status: 200, body: { project_id: 'PRJ-2', campaign_id: 'CMP-2' } });
    const listed = await api('GET', '/admin/v1/accounts/acc-api/portals');
    expect(listed.status).toBe(200);
    expect(JSON.stringify([first.body, again.body, listed.body])).not.toContain('api-$ecret');
  });

  it('requires the credential of a new login (400), refuses an unknown project (404) and another account’s login (409)', async () => {
    expect(await api('PUT', path('api-new'), { projectId: 'PRJ-1', campaignId: 'CMP-1' })).toMatchObject({ status: 400, body: { errors: { credential: [expect.any(String)] } } });
    expect(await api('PUT', path('api-new'), { projectId: 'PRJ-9', campaignId: 'CMP-1', credential: 'x' })).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    await api('PUT', path('api-taken'), { projectId: 'PRJ-1', campaignId: 'CMP-1', credential: 'x' });
    expect(await api('PUT', path('api-taken', 'acc-api-other'), { projectId: 'PRJ-1', campaignId: 'CMP-1', credential: 'y' })).toMatchObject({
      status: 409,
      body: { status: false, message: 'Portal login is connected to another account' },
    });
  });
});

describe('POST .../pull and DELETE', () => {
  it('pulls now and answers what pull-portal --json prints; a removed login is 404 Portal login not found', async () => {
    const fake = portal.login('api-pull', 'pw');
    fake.add({ id: 'API-1', receivedOn: istText(new Date(Date.now() - 60_000)), name: 'Through the API', phone: uniqueMobile() });
    await api('PUT', path('api-pull'), { projectId: 'PRJ-1', campaignId: 'CMP-1', credential: 'pw' });

    expect(await api('POST', `${path('api-pull')}/pull`)).toMatchObject({ status: 200, body: { stored: 1, recorded: 0, already: 0, pulled_through: expect.any(String) } });
    expect((await api('DELETE', path('api-pull'))).status).toBe(204);
    expect(await api('DELETE', path('api-pull'))).toMatchObject({ status: 404, body: { message: 'Portal login not found' } });
    expect(await api('POST', `${path('api-pull')}/pull`)).toMatchObject({ status: 404, body: { message: 'Portal login not found' } });
    expect((await service.leadsOf('acc-api')).map((lead) => lead.name)).toContain('Through the API');
  });
});
