/**
 * CONTRACT.md section 11, "Key lifecycle": a seed never re-activates a revoked or rotated key; a
 * rotation's grace is at most 30 days; two rotations at once leave the earlier grace end.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { applySeed, parseSeed } from '../../scripts/local/seed.ts';
import { revokeKey, rotateKey } from '../../shared/domain/api-keys.ts';
import { adminApi } from '../support/admin-handler.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let env: NodeJS.ProcessEnv;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

const seed = (key: string, keyId: string) =>
  parseSeed({
    accounts: [{ id: 'acc-life', name: 'Life', projects: [{ id: 'PRJ-1', name: 'P', campaigns: [{ id: 'CMP-1', name: 'C' }] }], subSources: { website: ['Skyline landing page'] } }],
    apiKeys: [{ key, keyId, accountId: 'acc-life', active: true }],
  });

const cli = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

beforeAll(async () => {
  service = await testService({ configCacheTtlSeconds: 0 });
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
});

const post = (key: string) => service.call('portala', { apiKey: key, body: validBody('portala', project) });

describe('applying a seed again', () => {
  it('never makes a revoked key active again', async () => {
    const key = 'seed-key-revoked-0001';
    await applySeed(service.repository, seed(key, 'key_revokedseed1'));
    expect((await post(key)).status).toBe(200);
    await revokeKey(service.keyAdmin(), { keyId: 'key_revokedseed1' });
    await applySeed(service.repository, seed(key, 'key_revokedseed1'));
    expect(await post(key)).toMatchObject({ status: 401, body: { message: 'Invalid API credentials' } });
  });

  it('never brings a rotated key back after its grace', async () => {
    const key = 'seed-key-rotated-0001';
    await applySeed(service.repository, seed(key, 'key_rotatedseed1'));
    await rotateKey(service.keyAdmin(), { keyId: 'key_rotatedseed1', graceSeconds: 0 });
    await applySeed(service.repository, seed(key, 'key_rotatedseed1'));
    expect((await post(key)).status).toBe(401);
  });
});

describe('the grace of a rotation', () => {
  it('is at most 30 days: more is exit 2 and 400, and nothing changes', async () => {
    await service.seedAccount({ id: 'acc-grace', projects: { 'PRJ-1': ['CMP-1'] } });
    const { key, keyId } = await service.issueScopedKey({ accountId: 'acc-grace' });
    const refused = await cli('rotate-key', '--id', keyId, '--grace', '2592001');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^admin rotate-key: --grace: the grace period is at most 2592000 seconds \(30 days\)/);
    const answer = await adminApi(service)('POST', `/admin/v1/accounts/acc-grace/keys/${keyId}/rotate`, { graceSeconds: 2_592_001 });
    expect(answer).toMatchObject({ status: 400, body: { status: false, errors: { graceSeconds: [expect.stringContaining('at most 2592000 seconds')] } } });
    expect(await service.repository.keys.listAccountKeys('acc-grace')).toHaveLength(1);
    expect((await service.call('portala', { apiKey: key, body: validBody('portala', { projectID: 'PRJ-1', campaignID: 'CMP-1' }) })).status).toBe(200);
    expect((await cli('rotate-key', '--id', keyId, '--grace', '2592000', '--json')).code).toBe(0);
  });

  it('keeps the earlier end when two rotations run at once', async () => {
    await service.seedAccount({ id: 'acc-race', projects: { 'PRJ-1': ['CMP-1'] } });
    for (let round = 0; round < 5; round++) {
      const { keyId } = await service.issueScopedKey({ accountId: 'acc-race' });
      const [short, long] = await Promise.all([
        rotateKey(service.keyAdmin(), { keyId, graceSeconds: 60 }),
        rotateKey(service.keyAdmin(), { keyId, graceSeconds: 86_400 }),
      ]);
      const stored = (await service.repository.keys.findKeyById(keyId))!.key.graceEndsAt;
      expect(stored).toBe(short.replaces.expires_at);
      // The longer rotation answers the end in force when it landed: its own if first, else the earlier.
      expect(long.replaces.expires_at >= stored!).toBe(true);
      expect((await service.repository.keys.listAccountKeys('acc-race')).filter((k) => k.keyId !== keyId).length).toBeGreaterThanOrEqual(2 * (round + 1));
    }
  });
});
