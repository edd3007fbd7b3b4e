/**
 * Portal logins in a seed file (CONTRACT.md sections 14 and 17): connected with their credential sealed,
 * a second apply changes their project and map but never their credential, a removed login is never
 * connected again, and a file naming a login twice, or an unknown portal, is refused whole.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { applySeed, parseSeed, SeedError } from '../../scripts/local/seed.ts';
import { removePortalLogin } from '../../shared/pulled/logins.ts';
import { fakeNinetyNineAcres, istText } from '../support/fake-portals.ts';
import { portalTestService, type PortalTestService } from '../support/portal-service.ts';
import { uniqueMobile } from '../support/service.ts';

let portal: Awaited<ReturnType<typeof fakeNinetyNineAcres>>;
let service: PortalTestService;

beforeAll(async () => {
  portal = await fakeNinetyNineAcres();
  service = await portalTestService({ baseUrls: { '99acres': portal.url } });
});
afterAll(async () => portal.close());

const seedOf = (accountId: string, entry: Record<string, unknown>) => ({
  accounts: [
    {
      id: accountId,
      name: 'Seeded',
      duplicateHandling: 'ignore',
      projects: [
        { id: 'PRJ-1', name: 'One', campaigns: [{ id: 'CMP-1', name: 'One' }] },
        { id: 'PRJ-2', name: 'Two', campaigns: [{ id: 'CMP-2', name: 'Two' }] },
      ],
      portals: [entry],
    },
  ],
  apiKeys: [],
});

describe('a seed’s portals', () => {
  it('connects a login with its credential sealed, which the pull then uses', async () => {
    const fake = portal.login('seed-one', 'seed-pw');
    fake.add({ id: 'S-1', receivedOn: istText(new Date(Date.now() - 60_000)), name: 'Seeded lead', phone: uniqueMobile() });
    await applySeed(service.repository, parseSeed(seedOf('acc-seed-1', { portal: '99acres', login: 'seed-one', credential: 'seed-pw', projectID: 'PRJ-1', campaignID: 'CMP-1' })));

    const { Items = [] } = await service.db.send(new ScanCommand({ TableName: service.tables.config }));
    expect(JSON.stringify(Items)).not.toContain('seed-pw');
    expect(await service.pull('99acres', 'seed-one')).toMatchObject({ stored: 1 });
  });

  it('applied again changes the project and map but never the credential', async () => {
    portal.login('seed-two', 'first');
    await applySeed(service.repository, parseSeed(seedOf('acc-seed-2', { portal: '99acres', login: 'seed-two', credential: 'first', projectID: 'PRJ-1', campaignID: 'CMP-1' })));
    await applySeed(
      service.repository,
      parseSeed(seedOf('acc-seed-2', { portal: '99acres', login: 'seed-two', credential: 'second', projectID: 'PRJ-2', campaignID: 'CMP-2', map: { '7': { projectID: 'PRJ-1', campaignID: 'CMP-1' } } })),
    );

    const [login] = await service.logins.list('acc-seed-2');
    expect(login).toMatchObject({ projectId: 'PRJ-2', campaignId: 'CMP-2', map: { '7': { projectId: 'PRJ-1', campaignId: 'CMP-1' } } });
    // The portal still takes the first credential: the pull is not refused.
    expect(await service.pull('99acres', 'seed-two')).toMatchObject({ stored: 0, pulled_through: expect.any(String) });
    expect(service.events.filter((event) => event.detail.login === 'seed-two')).toEqual([]);
    expect((await service.logins.list('acc-seed-2'))[0]).not.toHaveProperty('failingSince');
  });

  it('never connects again a login that was removed', async () => {
    const seed = parseSeed(seedOf('acc-seed-3', { portal: '99acres', login: 'seed-three', credential: 'pw', projectID: 'PRJ-1', campaignID: 'CMP-1' }));
    await applySeed(service.repository, seed);
    await removePortalLogin(service.admin, 'acc-seed-3', '99acres', 'seed-three');
    await applySeed(service.repository, seed);
    expect(await service.logins.list('acc-seed-3')).toEqual([]);
  });

  it('is refused whole for an unknown portal or a target that is not the account’s, naming each problem and never the credential', () => {
    const parse = () => parseSeed(seedOf('acc-seed-4', { portal: 'nobroker', login: 'x', credential: 'hidden-pw', projectID: 'PRJ-9', campaignID: 'CMP-1' }));
    expect(parse).toThrow(SeedError);
    expect(parse).toThrow(/portal must be one of 99acres/);
    expect(parse).not.toThrow(/hidden-pw/);
    expect(() => parseSeed(seedOf('acc-seed-4', { portal: '99acres', login: 'x', credential: 'pw', projectID: 'PRJ-9', campaignID: 'CMP-1' }))).toThrow(/projectID "PRJ-9" is not a project of the account/);
  });
});
