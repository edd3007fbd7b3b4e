import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { hashApiKey } from '../../shared/domain/account-directory.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

let service: TestService;
const keys: Record<string, string> = {};
const accounts = {
  'acc-a': { 'PRJ-A': ['CMP-A'] },
  'acc-b': { 'PRJ-B': ['CMP-B'] },
};

beforeAll(async () => {
  service = await testService({ configCacheTtlSeconds: 1 });
  for (const [id, projects] of Object.entries(accounts)) {
    await service.seedAccount({ id, projects, website: ['Skyline landing page'], social: ['fb'] });
    keys[id] = await service.issueKey(id);
  }
});

describe('tenant isolation', () => {
  const combinations = ['acc-a', 'acc-b'].flatMap((keyOwner) =>
    ['acc-a', 'acc-b'].flatMap((projectOwner) =>
      ['acc-a', 'acc-b'].map((campaignOwner) => ({ keyOwner, projectOwner, campaignOwner })),
    ),
  );

  it.each(combinations.filter((c) => !(c.keyOwner === c.projectOwner && c.projectOwner === c.campaignOwner)))(
    'refuses the key of $keyOwner with the project of $projectOwner and the campaign of $campaignOwner',
    async ({ keyOwner, projectOwner, campaignOwner }) => {
      const projectID = Object.keys(accounts[projectOwner as keyof typeof accounts])[0]!;
      const campaignID = Object.values(accounts[campaignOwner as keyof typeof accounts])[0]![0]!;
      const answer = await service.call('portala', { apiKey: keys[keyOwner]!, body: validBody('portala', { projectID, campaignID }) });
      expect(answer.status).toBe(422);
      expect(answer.body.message).toBe(projectOwner === keyOwner ? 'Campaign not found' : 'Project not found');
    },
  );

  it('accepts a key with its own project and campaign', async () => {
    const answer = await service.call('portala', { apiKey: keys['acc-b']!, body: validBody('portala', { projectID: 'PRJ-B', campaignID: 'CMP-B' }) });
    expect(answer.status).toBe(200);
    expect(await service.repository.leads.listLeads('acc-a', ['PRJ-B'])).toHaveLength(0);
  });
});

describe('API keys at rest', () => {
  it('are stored only as hashes: no table holds a plaintext key', async () => {
    for (const table of Object.values(service.tables)) {
      const { Items = [] } = await service.client.send(new ScanCommand({ TableName: table }));
      const everything = JSON.stringify(Items);
      for (const key of Object.values(keys)) expect(everything).not.toContain(key);
    }
  });
});

describe('a revoked key', () => {
  it('is refused once the configuration cache TTL has passed', async () => {
    const key = await service.issueKey('acc-a');
    const project = { projectID: 'PRJ-A', campaignID: 'CMP-A' };
    expect((await service.call('portala', { apiKey: key, body: validBody('portala', project) })).status).toBe(200);

    await service.repository.keys.revokeApiKey(hashApiKey(key));
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    const answer = await service.call('portala', { apiKey: key, body: validBody('portala', project) });
    expect(answer).toMatchObject({ status: 401, body: { message: 'Invalid API credentials' } });
  });
});
