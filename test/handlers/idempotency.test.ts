import { beforeAll, describe, expect, it } from '@jest/globals';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { endpointNames, testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

let service: TestService;
const keys: Partial<Record<DuplicateSetting, string>> = {};
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  for (const setting of ['ignore', 'create', 'merge'] as const) {
    await service.seedAccount({ id: `acc-${setting}`, duplicateSetting: setting, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
    keys[setting] = await service.issueKey(`acc-${setting}`);
  }
});

const leadsOf = (setting: DuplicateSetting) => service.repository.leadArchive.listLeads(`acc-${setting}`, ['PRJ-1']);
const send = (setting: DuplicateSetting, name: (typeof endpointNames)[number], body: object, idempotencyKey?: string) =>
  service.call(name, { apiKey: keys[setting]!, rawBody: JSON.stringify(body), headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey } });

describe.each(['ignore', 'create', 'merge'] as const)('a retried submission under %s', (setting) => {
  it.each(endpointNames)('with the same Idempotency-Key on %s gets the first answer and stores nothing more', async (name) => {
    const body = validBody(name, project);
    const key = `retry-${name}-${setting}-${uniqueMobile()}`;
    const before = (await leadsOf(setting)).length;

    const first = await send(setting, name, body, key);
    const retry = await send(setting, name, body, key);

    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(first.headers).not.toHaveProperty('idempotent-replayed');
    expect((await leadsOf(setting)).length).toBe(before + 1);
  });
});

describe('an Idempotency-Key', () => {
  it('reused with a different body answers 422 and stores nothing', async () => {
    const key = `reuse-${uniqueMobile()}`;
    await send('create', 'portala', validBody('portala', project), key);
    const before = (await leadsOf('create')).length;
    const answer = await send('create', 'portala', validBody('portala', project), key);
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ status: false, message: 'Idempotency key reused with a different payload' });
    expect((await leadsOf('create')).length).toBe(before);
  });

  it('replays a repeated lead under Merge without making another repeat', async () => {
    const mobile = uniqueMobile();
    await send('merge', 'portala', validBody('portala', project, { mobile_number: mobile }));
    const body = validBody('portalb', project, { mobile_number: mobile });
    const first = await send('merge', 'portalb', body, `merge-${mobile}`);
    const retry = await send('merge', 'portalb', body, `merge-${mobile}`);
    expect(first.body.data.is_repeated).toBe(true);
    expect(retry.body).toEqual(first.body);
    expect((await leadsOf('merge')).filter((lead) => lead.mobile_number === mobile)).toHaveLength(2);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });

  it('is scoped to the account: another account may use the same key', async () => {
    const key = `shared-${uniqueMobile()}`;
    const a = await send('create', 'portala', validBody('portala', project), key);
    const b = await send('merge', 'portala', validBody('portala', project), key);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers).not.toHaveProperty('idempotent-replayed');
  });

  it('is not needed: without it a resubmission is handled as a duplicate', async () => {
    const body = validBody('portala', project);
    await send('ignore', 'portala', body);
    expect((await send('ignore', 'portala', body)).body.message).toBe('Lead already exists');
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['with a control character', 'key\u0001'],
    ['with non-ASCII text', 'clé'],
  ])('answers 400 when it is %s', async (_, key) => {
    const answer = await send('create', 'portala', validBody('portala', project), key);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ status: false, message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' });
  });

  it('accepts 255 printable characters', async () => {
    const answer = await send('create', 'portala', validBody('portala', project), `~${'k'.repeat(254)}`);
    expect(answer.status).toBe(200);
  });

  it('still costs one request for a new lead', async () => {
    const warmUp = await send('create', 'portala', validBody('portala', project));
    expect(warmUp.status).toBe(200);
    service.roundTrips.reset();
    await send('create', 'portala', validBody('portala', project), `one-trip-${uniqueMobile()}`);
    expect(service.roundTrips.commands()).toEqual(['TransactWriteItemsCommand']);
  });
});
