/**
 * The admin API (CONTRACT.md section 9) through its Lambda handler, as API Gateway invokes it after
 * IAM authorization, against DynamoDB Local; lead requests go through the lead handlers of the same
 * service, so what a configuration change does to leads is seen end to end.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { DynamoDbAccountStore } from '../../shared/dynamodb/accounts.ts';
import { DynamoDbApiKeyStore } from '../../shared/dynamodb/api-keys.ts';
import { DynamoDbConnectionStore } from '../../shared/dynamodb/connections.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { adminCall } from '../support/admin-handler.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../../shared/http/lambda.ts';
import { testService, validBody, type Answer, type TestService } from '../support/service.ts';

let service: TestService;
let handler: ReturnType<typeof adminHandler>;
const adminLogs: Record<string, unknown>[] = [];

beforeAll(async () => {
  service = await testService();
  handler = adminHandler(adminRuntime(service.repository, (line) => void adminLogs.push({ ...line })));
});

const admin = (method: string, path: string, body?: unknown, options?: { rawBody?: string }) => adminCall(handler, method, path, body, options);

const settings = { name: 'Harbour Homes', duplicateHandling: 'merge', subSources: { website: ['Harbour page'], social: ['fb', 'ig'] } };
const newAccountId = () => `acc-${randomUUID().slice(0, 8)}`;

/** An account with one project and campaign, made through the API, with a lead key. */
const accountWithCampaign = async () => {
  const id = newAccountId();
  await admin('PUT', `/admin/v1/accounts/${id}`, settings);
  await admin('PUT', `/admin/v1/accounts/${id}/projects/PRJ-1`, { name: 'Harbour View' });
  await admin('PUT', `/admin/v1/accounts/${id}/projects/PRJ-1/campaigns/CMP-1`, { name: 'Launch' });
  return { id, key: await service.issueKey(id), base: `/admin/v1/accounts/${id}` };
};

const configItems = async (accountId: string) => {
  const { Items = [] } = await createDocumentClient({ client: service.client }).send(new ScanCommand({ TableName: service.tables.config, ConsistentRead: true }));
  return Items.filter((item) => item.pk === `ACCOUNT#${accountId}`).sort((a, b) => (a.sk < b.sk ? -1 : 1));
};

const lead = (key: string, project: { projectID: string; campaignID: string }) =>
  service.call('portala', { apiKey: key, body: validBody('portala', project) });

describe('accounts', () => {
  it('creates an account with PUT and answers it as GET does, with no envelope', async () => {
    const id = newAccountId();
    const put = await admin('PUT', `/admin/v1/accounts/${id}`, settings);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id, ...settings, retention: { leadDays: null, rejectionDays: 30 }, projects: [] });
    expect(put.headers['x-request-id']).toEqual(expect.any(String));
    expect(await admin('GET', `/admin/v1/accounts/${id}`)).toMatchObject({ status: 200, body: put.body });
  });

  it('defaults the duplicate setting to ignore and the sub sources to none', async () => {
    const id = newAccountId();
    const { body } = await admin('PUT', `/admin/v1/accounts/${id}`, { name: 'Plain' });
    expect(body).toEqual({ id, name: 'Plain', duplicateHandling: 'ignore', subSources: { website: [], social: [] }, retention: { leadDays: null, rejectionDays: 30 }, projects: [] });
  });

  it('replaces the settings of an account and keeps its projects', async () => {
    const { id, base } = await accountWithCampaign();
    const { status, body } = await admin('PUT', base, { name: 'Renamed', duplicateHandling: 'create' });
    expect(status).toBe(200);
    expect(body).toEqual({
      id,
      name: 'Renamed',
      duplicateHandling: 'create',
      subSources: { website: [], social: [] },
      retention: { leadDays: null, rejectionDays: 30 },
      projects: [{ id: 'PRJ-1', name: 'Harbour View', campaigns: [{ id: 'CMP-1', name: 'Launch' }] }],
    });
  });

  it('answers 404 Account not found for an account that does not exist', async () => {
    const answer = await admin('GET', `/admin/v1/accounts/${newAccountId()}`);
    expect(answer).toMatchObject({ status: 404, body: { status: false, message: 'Account not found' } });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('never shows keys', async () => {
    const { base } = await accountWithCampaign();
    expect(JSON.stringify((await admin('GET', base)).body)).not.toMatch(/key/i);
  });

  it.each([
    ['a missing name', { duplicateHandling: 'ignore' }, 'name', 'name must be a non-empty string'],
    ['an unknown duplicate setting', { name: 'A', duplicateHandling: 'Merge' }, 'duplicateHandling', 'duplicateHandling must be one of ignore, create, merge, not "Merge"'],
    ['a social sub source outside fb, ig, wp', { name: 'A', subSources: { social: ['tiktok'] } }, 'subSources.social[0]', 'subSources.social[0] "tiktok" is not one of fb, ig, wp'],
    ['a website sub source twice', { name: 'A', subSources: { website: ['Page', 'Page'] } }, 'subSources.website[1]', 'subSources.website[1] "Page" appears more than once'],
    ['a name with surrounding spaces', { name: ' A' }, 'name', 'name " A" has leading or trailing spaces (requests are trimmed, so it could never match)'],
    ['a misspelt field', { name: 'A', duplicatehandling: 'merge' }, 'duplicatehandling', 'duplicatehandling is not a known field'],
    ['sub sources that are not an object', { name: 'A', subSources: ['fb'] }, 'subSources', 'subSources must be an object with "website" and "social" lists'],
  ])('refuses %s with 400, the problem in words and in errors, and stores nothing', async (_what, body, field, message) => {
    const id = newAccountId();
    const answer = await admin('PUT', `/admin/v1/accounts/${id}`, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ status: false, message, errors: { [field]: [message] } });
    expect(await configItems(id)).toEqual([]);
  });

  it('lists every problem of a body at once, the first in the message', async () => {
    const answer = await admin('PUT', `/admin/v1/accounts/${newAccountId()}`, { name: '', duplicateHandling: 'never', subSources: { social: ['FB'] } });
    expect(Object.keys(answer.body.errors)).toEqual(['name', 'duplicateHandling', 'subSources.social[0]']);
    expect(answer.body.message).toBe('name must be a non-empty string');
  });

  it('refuses an account id with # on the path', async () => {
    const answer = await admin('PUT', `/admin/v1/accounts/${encodeURIComponent('acc#1')}`, settings);
    expect(answer).toMatchObject({ status: 400, body: { errors: { accountId: ['accountId "acc#1" must not contain "#"'] } } });
  });

  it('refuses a body that is not JSON, or not an object', async () => {
    const id = newAccountId();
    expect(await admin('PUT', `/admin/v1/accounts/${id}`, undefined, { rawBody: '{"name": ' })).toMatchObject({ status: 400, body: { status: false, message: 'Malformed JSON body' } });
    expect(await admin('PUT', `/admin/v1/accounts/${id}`, ['name'])).toMatchObject({ status: 400, body: { status: false, message: 'Request body must be a JSON object' } });
    expect(await configItems(id)).toEqual([]);
  });
});

describe('projects', () => {
  it('creates a project, its name defaulting to its id, and answers it with its campaigns', async () => {
    const { base } = await accountWithCampaign();
    expect(await admin('PUT', `${base}/projects/PRJ-2`)).toMatchObject({ status: 200, body: { id: 'PRJ-2', name: 'PRJ-2', campaigns: [] } });
    expect(await admin('PUT', `${base}/projects/PRJ-1`, { name: 'Harbour View II' })).toMatchObject({
      status: 200,
      body: { id: 'PRJ-1', name: 'Harbour View II', campaigns: [{ id: 'CMP-1', name: 'Launch' }] },
    });
  });

  it('answers 404 Account not found under an account that does not exist, and stores nothing', async () => {
    const id = newAccountId();
    expect(await admin('PUT', `/admin/v1/accounts/${id}/projects/PRJ-1`, { name: 'P' })).toMatchObject({ status: 404, body: { message: 'Account not found' } });
    expect(await configItems(id)).toEqual([]);
  });

  it('retires a project with DELETE (204, no body): new leads get Project not found, its leads are kept', async () => {
    const { id, key, base } = await accountWithCampaign();
    const before = await lead(key, { projectID: 'PRJ-1', campaignID: 'CMP-1' });
    expect(before.status).toBe(200);
    const retired = await admin('DELETE', `${base}/projects/PRJ-1`);
    expect(retired).toMatchObject({ status: 204, body: undefined });
    expect(retired.headers['x-request-id']).toEqual(expect.any(String));
    // This service caches configuration for 30 s: a retirement applies within the TTL, so ask a fresh runtime.
    const fresh = await testServiceOn(service);
    expect(await fresh.call('portala', { apiKey: key, body: validBody('portala', { projectID: 'PRJ-1', campaignID: 'CMP-1' }) })).toMatchObject({
      status: 422,
      body: { message: 'Project not found' },
    });
    expect((await admin('GET', base)).body.projects).toEqual([]);
    expect((await service.repository.leadArchive.listLeads(id, ['PRJ-1'])).map((l) => l.id)).toEqual([before.body.data.id]);
  });

  it('retires the campaigns of a retired project with it, in the same write, and keeps them retired when the project comes back', async () => {
    const { id, base } = await accountWithCampaign();
    await admin('PUT', `${base}/projects/PRJ-1/campaigns/CMP-2`, { name: 'Second' });
    await admin('DELETE', `${base}/projects/PRJ-1`);
    expect((await configItems(id)).filter((item) => item.sk !== 'ACCOUNT').map((item) => [item.sk, item.retired])).toEqual([
      ['CAMPAIGN#CMP-1', true],
      ['CAMPAIGN#CMP-2', true],
      ['PROJECT#PRJ-1', true],
    ]);
    expect(await admin('PUT', `${base}/projects/PRJ-1`, { name: 'Back' })).toMatchObject({ status: 200, body: { id: 'PRJ-1', name: 'Back', campaigns: [] } });
    expect(await admin('PUT', `${base}/projects/PRJ-1/campaigns/CMP-2`, { name: 'Second' })).toMatchObject({ status: 200 });
    expect((await admin('GET', base)).body.projects).toEqual([{ id: 'PRJ-1', name: 'Back', campaigns: [{ id: 'CMP-2', name: 'Second' }] }]);
  });

  it('answers 204 to retiring a project again, and 404 Project not found for one that never existed', async () => {
    const { base } = await accountWithCampaign();
    expect((await admin('DELETE', `${base}/projects/PRJ-1`)).status).toBe(204);
    expect((await admin('DELETE', `${base}/projects/PRJ-1`)).status).toBe(204);
    expect(await admin('DELETE', `${base}/projects/PRJ-9`)).toMatchObject({ status: 404, body: { status: false, message: 'Project not found' } });
    expect(await admin('DELETE', `/admin/v1/accounts/${newAccountId()}/projects/PRJ-1`)).toMatchObject({ status: 404, body: { message: 'Account not found' } });
  });

  it('refuses a project id too long for a lead to carry', async () => {
    const { base } = await accountWithCampaign();
    const answer = await admin('PUT', `${base}/projects/${'P'.repeat(101)}`, { name: 'Long' });
    expect(answer).toMatchObject({ status: 400, body: { errors: { projectId: [expect.stringContaining('is longer than 100 characters')] } } });
  });
});

describe('campaigns', () => {
  it('creates a campaign that lead requests accept at once, though the account is cached', async () => {
    const { key, base } = await accountWithCampaign();
    expect((await lead(key, { projectID: 'PRJ-1', campaignID: 'CMP-1' })).status).toBe(200); // caches the account
    expect(await admin('PUT', `${base}/projects/PRJ-1/campaigns/CMP-NEW`, { name: 'New' })).toMatchObject({
      status: 200,
      body: { id: 'CMP-NEW', name: 'New', projectId: 'PRJ-1' },
    });
    expect((await lead(key, { projectID: 'PRJ-1', campaignID: 'CMP-NEW' })).status).toBe(200);
  });

  it('answers 409 Campaign belongs to another project for an active campaign of another project, and changes nothing', async () => {
    const { id, base } = await accountWithCampaign();
    await admin('PUT', `${base}/projects/PRJ-2`, { name: 'Other' });
    const before = await configItems(id);
    expect(await admin('PUT', `${base}/projects/PRJ-2/campaigns/CMP-1`, { name: 'Moved' })).toMatchObject({
      status: 409,
      body: { status: false, message: 'Campaign belongs to another project' },
    });
    expect(await configItems(id)).toEqual(before);
  });

  it('retires a campaign with DELETE: its leads are refused with Campaign not found, and it may be PUT again under any project', async () => {
    const { key, base } = await accountWithCampaign();
    await admin('PUT', `${base}/projects/PRJ-2`, { name: 'Other' });
    expect((await admin('DELETE', `${base}/projects/PRJ-1/campaigns/CMP-1`)).status).toBe(204);
    const fresh = await testServiceOn(service);
    expect(await fresh.call('portala', { apiKey: key, body: validBody('portala', { projectID: 'PRJ-1', campaignID: 'CMP-1' }) })).toMatchObject({
      status: 422,
      body: { message: 'Campaign not found' },
    });
    expect(await admin('PUT', `${base}/projects/PRJ-2/campaigns/CMP-1`, { name: 'Moved' })).toMatchObject({ status: 200, body: { projectId: 'PRJ-2' } });
    expect((await lead(key, { projectID: 'PRJ-2', campaignID: 'CMP-1' })).status).toBe(200);
  });

  it('answers 404 for an unknown or retired project, a campaign of another project, and an unknown account', async () => {
    const { base } = await accountWithCampaign();
    await admin('PUT', `${base}/projects/PRJ-2`, { name: 'Other' });
    await admin('DELETE', `${base}/projects/PRJ-2`);
    expect(await admin('PUT', `${base}/projects/PRJ-9/campaigns/CMP-9`, {})).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    expect(await admin('PUT', `${base}/projects/PRJ-2/campaigns/CMP-9`, {})).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    expect(await admin('DELETE', `${base}/projects/PRJ-2/campaigns/CMP-1`)).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
    expect(await admin('DELETE', `${base}/projects/PRJ-1/campaigns/CMP-9`)).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
    expect(await admin('PUT', `/admin/v1/accounts/${newAccountId()}/projects/PRJ-1/campaigns/CMP-1`, {})).toMatchObject({ status: 404, body: { message: 'Account not found' } });
  });

  it('refuses a bad name with 400 and changes nothing', async () => {
    const { id, base } = await accountWithCampaign();
    const before = await configItems(id);
    expect(await admin('PUT', `${base}/projects/PRJ-1/campaigns/CMP-1`, { name: 'x'.repeat(201) })).toMatchObject({
      status: 400,
      body: { errors: { name: [expect.stringContaining('is longer than 200 characters')] } },
    });
    expect(await configItems(id)).toEqual(before);
  });

  it('gives one campaign id to exactly one of two projects that claim it at once', async () => {
    const { base } = await accountWithCampaign();
    await admin('PUT', `${base}/projects/PRJ-2`, { name: 'Two' });
    await admin('PUT', `${base}/projects/PRJ-3`, { name: 'Three' });
    const answers = await Promise.all(['PRJ-2', 'PRJ-3'].map((p) => admin('PUT', `${base}/projects/${p}/campaigns/CMP-RACE`, { name: 'Race' })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
  });
});

describe('keys', () => {
  /** A lead through a container that has cached nothing: what a key change does once the cache TTL has passed. */
  const freshLead = async (key: string) =>
    (await testServiceOn(service)).call('portala', { apiKey: key, body: validBody('portala', { projectID: 'PRJ-1', campaignID: 'CMP-1' }) });

  it('creates a key with POST (201, shown once) that lead requests accept at once', async () => {
    const { id, base } = await accountWithCampaign();
    const answer = await admin('POST', `${base}/keys`, { label: 'Website form' });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      key: expect.any(String),
      key_id: expect.stringMatching(/^key_[A-Za-z0-9]+$/),
      account_id: id,
      label: 'Website form',
      endpoints: null,
      origins: null,
      expires_at: null,
      created_at: expect.any(String),
      captcha: null,
    });
    expect((await lead(answer.body.key, { projectID: 'PRJ-1', campaignID: 'CMP-1' })).status).toBe(200);
  });

  it('creates a key with no body at all', async () => {
    const { base } = await accountWithCampaign();
    expect(await admin('POST', `${base}/keys`)).toMatchObject({ status: 201, body: { label: null, endpoints: null } });
  });

  it('lists the keys of the account, never a key or a hash', async () => {
    const { base } = await accountWithCampaign();
    const browser = await admin('POST', `${base}/keys`, { label: 'Landing page', origins: ['https://Shop.example:443'], expiresAt: '2099-01-01T00:00:00Z' });
    const listed = await admin('GET', `${base}/keys`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      { key_id: browser.body.key_id, label: 'Landing page', endpoints: ['website'], origins: ['https://shop.example'], active: true, created_at: expect.any(String), expires_at: '2099-01-01T00:00:00.000Z', captcha: null },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(browser.body.key);
  });

  it.each([
    ['an endpoint list that is not a list', { endpoints: 'website' }, 'endpoints', 'endpoints must be an array of strings'],
    ['an unknown endpoint', { endpoints: ['website', 'fax'] }, 'endpoints', expect.stringContaining('fax')],
    ['origins with a server-to-server endpoint', { origins: ['https://shop.example'], endpoints: ['portala'] }, 'endpoints', expect.stringContaining('browser key')],
    ['an origin with a path', { origins: ['https://shop.example/form'] }, 'origins', expect.stringContaining('https://shop.example/form')],
    ['an expiry in the past', { expiresAt: '2000-01-01T00:00:00Z' }, 'expiresAt', expect.any(String)],
    ['a misspelt field', { lable: 'x' }, 'lable', 'lable is not a known field'],
  ])('refuses %s with 400 and creates no key', async (_what, body, field, message) => {
    const { base } = await accountWithCampaign();
    const answer = await admin('POST', `${base}/keys`, body);
    expect(answer).toMatchObject({ status: 400, body: { status: false, errors: { [field]: [message] } } });
    expect(answer.body.message).toBe(answer.body.errors[field][0]);
    expect((await admin('GET', `${base}/keys`)).body).toEqual([]);
  });

  it('answers 404 Account not found for the keys of an account that does not exist', async () => {
    const base = `/admin/v1/accounts/${newAccountId()}`;
    expect(await admin('POST', `${base}/keys`, {})).toMatchObject({ status: 404, body: { message: 'Account not found' } });
    expect(await admin('GET', `${base}/keys`)).toMatchObject({ status: 404, body: { message: 'Account not found' } });
    expect(await admin('DELETE', `${base}/keys/key_abc`)).toMatchObject({ status: 404, body: { message: 'Account not found' } });
  });

  it('revokes a key with DELETE (204): it then answers 401 and is listed inactive', async () => {
    const { base } = await accountWithCampaign();
    const { body: issued } = await admin('POST', `${base}/keys`, {});
    expect(await admin('DELETE', `${base}/keys/${issued.key_id}`)).toMatchObject({ status: 204, body: undefined });
    expect(await freshLead(issued.key)).toMatchObject({ status: 401, body: { message: 'Invalid API credentials' } });
    expect((await admin('GET', `${base}/keys`)).body).toEqual([expect.objectContaining({ key_id: issued.key_id, active: false })]);
  });

  it('answers 404 Key not found for an unknown key id, or a key of another account, and revokes nothing', async () => {
    const mine = await accountWithCampaign();
    const theirs = await accountWithCampaign();
    const { body: theirKey } = await admin('POST', `${theirs.base}/keys`, {});
    expect(await admin('DELETE', `${mine.base}/keys/key_nosuchkey`)).toMatchObject({ status: 404, body: { message: 'Key not found' } });
    expect(await admin('DELETE', `${mine.base}/keys/${theirKey.key_id}`)).toMatchObject({ status: 404, body: { message: 'Key not found' } });
    expect(await admin('POST', `${mine.base}/keys/${theirKey.key_id}/rotate`, {})).toMatchObject({ status: 404, body: { message: 'Key not found' } });
    expect((await freshLead(theirKey.key)).status).toBe(200); // still valid
  });

  it('rotates a key (201): a new key with the same options, the old one ending after the grace', async () => {
    const { base } = await accountWithCampaign();
    const { body: old } = await admin('POST', `${base}/keys`, { label: 'Portal A', endpoints: ['portala'] });
    const rotated = await admin('POST', `${base}/keys/${old.key_id}/rotate`, { graceSeconds: 0 });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ label: 'Portal A', endpoints: ['portala'], replaces: { key_id: old.key_id } });
    expect(rotated.body.key).not.toBe(old.key);
    expect((await freshLead(rotated.body.key)).status).toBe(200);
    expect((await freshLead(old.key)).status).toBe(401);
  });

  it('refuses a negative grace with 400, and a revoked key with 409', async () => {
    const { base } = await accountWithCampaign();
    const { body: key } = await admin('POST', `${base}/keys`, {});
    expect(await admin('POST', `${base}/keys/${key.key_id}/rotate`, { graceSeconds: -1 })).toMatchObject({ status: 400, body: { errors: { graceSeconds: [expect.any(String)] } } });
    expect(await admin('POST', `${base}/keys/${key.key_id}/rotate`, { graceSeconds: 'soon' })).toMatchObject({
      status: 400,
      body: { errors: { graceSeconds: ['graceSeconds must be a whole number of seconds'] } },
    });
    await admin('DELETE', `${base}/keys/${key.key_id}`);
    expect(await admin('POST', `${base}/keys/${key.key_id}/rotate`, {})).toMatchObject({ status: 409, body: { status: false, message: 'Key is revoked and cannot be rotated' } });
  });
});

describe('answers', () => {
  it('answers an unexpected failure with 500, a request id and nothing from inside', async () => {
    const db = createDocumentClient({ client: service.client });
    const broken = adminHandler(
      adminRuntime(
        { ...service.repository, accounts: new DynamoDbAccountStore(db, 'no-such-table'), keys: new DynamoDbApiKeyStore(db, 'no-such-table'), connections: (kind) => new DynamoDbConnectionStore(db, 'no-such-table', kind) },
        () => undefined,
      ),
    );
    const answer = await adminCall(broken, 'GET', '/admin/v1/accounts/acc-1');
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ status: false, message: `Request failed (request ${answer.headers['x-request-id']})` });
  });

  it('logs one line per request, with the operation, and no lead metrics', async () => {
    adminLogs.length = 0;
    await admin('GET', `/admin/v1/accounts/${newAccountId()}`);
    await admin('PUT', `/admin/v1/accounts/${newAccountId()}`, settings);
    expect(adminLogs.map((line) => [line.endpoint, line.outcome, line.status])).toEqual([
      ['admin', 'account_not_found', 404],
      ['admin', 'putAccount', 200],
    ]);
  });
});

/** Lead handlers with a cold cache on the same tables: what a container started after the change sees. */
const testServiceOn = async (existing: TestService) => {
  const { leadRuntime } = await import('../../shared/runtime.ts');
  const { leadHandler } = await import('../../shared/http/lead-handler.ts');
  const { endpoints } = await import('../support/service.ts');
  const runtime = leadRuntime({ stores: existing.repository, configCacheTtlSeconds: 30, corsAllowedOrigins: ['*'], log: () => undefined });
  const portala = leadHandler(endpoints.portala, runtime);
  return {
    call: async (_name: 'portala', request: { apiKey: string; body: unknown }): Promise<Answer> => {
      const event = apiGatewayEvent({ path: '/api/portala-lead-create', headers: { 'content-type': 'application/json', 'x-api-key': request.apiKey }, body: JSON.stringify(request.body) });
      const response = (await portala(event, lambdaContext('portala') as LeadContext)) as LeadResponse;
      return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
    },
  };
};
