import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { hashApiKey } from '../../shared/domain/account-directory.ts';
import { runAdmin } from '../../scripts/admin.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

let service: TestService;
const keys: Record<string, string> = {};
const accounts = {
  'acc-a': { 'PRJ-A': ['CMP-A'] },
  'acc-b': { 'PRJ-B': ['CMP-B'] },
};

/** The product's own path for keys: `npm run admin -- <argv>` on this file's tables. */
const admin = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  expect([code, stderr.includes('admin ')]).toEqual([0, false]);
  return stdout.trim();
};

/** A key as an operator makes one: printed once by the admin CLI. */
const createKey = (accountId: string) => admin('create-key', '--account', accountId);

beforeAll(async () => {
  service = await testService({ configCacheTtlSeconds: 1 });
  for (const [id, projects] of Object.entries(accounts)) {
    await service.seedAccount({ id, projects, website: ['Skyline landing page'], social: ['fb'] });
    keys[id] = await createKey(id);
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
    expect(await service.repository.leadArchive.listLeads('acc-a', ['PRJ-B'])).toHaveLength(0);
  });
});

describe('API keys at rest', () => {
  it('are stored only as hashes: no table holds a plaintext key, the config table holds each hash', async () => {
    const dump: Record<string, string> = {};
    for (const [role, table] of Object.entries(service.tables)) {
      const { Items = [] } = await service.client.send(new ScanCommand({ TableName: table }));
      dump[role] = JSON.stringify(Items);
    }
    for (const [accountId, key] of Object.entries(keys)) {
      // The key works, so the scan looks at the record the service reads.
      const [projectID, campaignIDs] = Object.entries(accounts[accountId as keyof typeof accounts])[0]!;
      expect((await service.call('portala', { apiKey: key, body: validBody('portala', { projectID, campaignID: campaignIDs[0]! }) })).status).toBe(200);
      expect(dump.config).toContain(hashApiKey(key));
      for (const everything of Object.values(dump)) expect(everything).not.toContain(key);
    }
  });
});

describe('a revoked key', () => {
  it('is refused once the configuration cache TTL has passed', async () => {
    const key = await createKey('acc-a');
    const project = { projectID: 'PRJ-A', campaignID: 'CMP-A' };
    expect((await service.call('portala', { apiKey: key, body: validBody('portala', project) })).status).toBe(200);

    await admin('revoke-key', key);
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    const answer = await service.call('portala', { apiKey: key, body: validBody('portala', project) });
    expect(answer).toMatchObject({ status: 401, body: { message: 'Invalid API credentials' } });
  });
});
