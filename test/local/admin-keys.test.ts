import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { hashApiKey } from '../../shared/domain/api-keys.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { runAdmin } from '../../scripts/admin.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

/** The key lifecycle in the admin CLI (CONTRACT.md section 7, "Admin CLI"). */
let service: TestService;
let env: NodeJS.ProcessEnv;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const SHOP = 'https://shop.example';
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

const admin = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

const configItems = async () => {
  const { Items = [] } = await createDocumentClient({ client: service.client }).send(new ScanCommand({ TableName: service.tables.config }));
  return Items;
};

/** `create-key --json` with options; the parsed object. */
const createJson = async (...options: string[]) => {
  const { code, stdout, stderr } = await admin('create-key', '--account', 'acc-keys', '--json', ...options);
  expect({ code, stderr: stderr.includes('Usage') ? stderr : '' }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(stdout);
};

const listJson = async (account = 'acc-keys') => {
  const { code, stdout } = await admin('list-keys', '--account', account, '--json');
  expect(code).toBe(0);
  return JSON.parse(stdout) as Record<string, unknown>[];
};

beforeAll(async () => {
  service = await testService({ configCacheTtlSeconds: 0 });
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
  await service.seedAccount({ id: 'acc-keys', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
  await service.seedAccount({ id: 'acc-empty' });
});

describe('admin create-key', () => {
  it('prints the key alone on standard output, and its key id with a reminder on standard error', async () => {
    const { code, stdout, stderr } = await admin('create-key', '--account', 'acc-keys');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^lk_[A-Za-z0-9_-]{32}\n$/);
    expect(stderr).toMatch(/API key key_[a-z0-9]+ created for account acc-keys\. The key is shown only this once/);
    expect(stderr).not.toContain(stdout.trim());
  });

  it('prints one JSON object with --json: the key, its id, account, label, endpoints, origins and expiry', async () => {
    const expires = inAnHour();
    const created = await createJson('--label', 'Skyline landing page', '--origins', 'https://Shop.example:443,https://www.shop.example', '--expires', expires);
    expect(created).toEqual({
      key: expect.stringMatching(/^lk_/),
      key_id: expect.stringMatching(/^key_[a-z0-9]+$/),
      account_id: 'acc-keys',
      label: 'Skyline landing page',
      endpoints: ['website'],
      origins: [SHOP, 'https://www.shop.example'],
      expires_at: expires,
      created_at: expect.any(String),
      captcha: null,
    });
    const answer = await service.call('website', { apiKey: created.key, body: validBody('website', project), headers: { origin: SHOP } });
    expect(answer.status).toBe(200);
  });

  it('gives nulls for what a key without options does not limit', async () => {
    expect(await createJson()).toMatchObject({ label: null, endpoints: null, origins: null, expires_at: null });
  });

  it('limits a key to the endpoints given', async () => {
    const created = await createJson('--endpoints', 'portala, portalb');
    expect(created.endpoints).toEqual(['portala', 'portalb']);
    expect((await service.call('portalb', { apiKey: created.key, body: validBody('portalb', project) })).status).toBe(200);
    expect((await service.call('social', { apiKey: created.key, body: validBody('social', project) })).status).toBe(403);
  });

  it('refuses an account that does not exist with exit code 1, storing nothing', async () => {
    const before = (await configItems()).length;
    expect(await admin('create-key', '--account', 'acc-nobody')).toEqual({ code: 1, stdout: '', stderr: 'admin create-key: account "acc-nobody" does not exist\n' });
    expect((await configItems()).length).toBe(before);
  });

  it.each([
    [['--endpoints', 'website,portalc'], '--endpoints: unknown endpoint "portalc"'],
    [['--endpoints', ''], '--endpoints: unknown endpoint ""'],
    [['--origins', 'https://shop.example/'], '--origins: "https://shop.example/" is not an origin'],
    [['--origins', 'https://shop.example/form'], '--origins: "https://shop.example/form" is not an origin'],
    [['--origins', 'https://shop.example?x=1'], '--origins: "https://shop.example?x=1" is not an origin'],
    [['--origins', 'https://shop.example#top'], '--origins: "https://shop.example#top" is not an origin'],
    [['--origins', 'shop.example'], '--origins: "shop.example" is not an origin'],
    [['--origins', 'ftp://shop.example'], '--origins: "ftp://shop.example" is not an origin'],
    [['--origins', 'https://user@shop.example'], '--origins: "https://user@shop.example" is not an origin'],
    [['--origins', SHOP, '--endpoints', 'website,portala'], '--endpoints: a key with origins is a browser key and may only use the website endpoint, not portala'],
    [['--expires', '2020-01-01T00:00:00Z'], '--expires: the expiry 2020-01-01T00:00:00.000Z is in the past'],
    [['--expires', 'next tuesday'], '--expires: the expiry must be an ISO-8601 date or date-time'],
    [['--expires', '2099-02-30'], '--expires: the expiry must be an ISO-8601'],
    [['--label', 'x'.repeat(201)], '--label: the label is longer than 200 characters'],
  ])('refuses %j with the problem named and exit code 2, storing nothing', async (options, message) => {
    const before = (await configItems()).length;
    const { code, stdout, stderr } = await admin('create-key', '--account', 'acc-keys', ...options);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr.split('\n')[0]).toContain(`admin create-key: ${message}`);
    expect(stderr).toContain('Usage: npm run admin -- create-key');
    expect((await configItems()).length).toBe(before);
  });

  it.each([
    [[], '--account is required'],
    [['--account'], "Option '--account <value>' argument missing"],
    [['--account', 'acc-keys', 'extra'], 'expected no arguments'],
    [['--account', 'acc-keys', '--json=yes'], "Option '--json' does not take an argument"],
  ])('refuses the arguments %j with exit code 2', async (args, message) => {
    const { code, stderr } = await admin('create-key', ...args);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toContain(message);
  });
});

describe('admin list-keys', () => {
  it("lists an account's keys as JSON, oldest first, with key id, label, endpoints, origins, active, created and expiry", async () => {
    await service.seedAccount({ id: 'acc-list', projects: { 'PRJ-1': ['CMP-1'] } });
    const first = JSON.parse((await admin('create-key', '--account', 'acc-list', '--json', '--label', 'Portal A feed', '--endpoints', 'portala')).stdout);
    const second = JSON.parse((await admin('create-key', '--account', 'acc-list', '--json', '--origins', SHOP)).stdout);
    expect(await listJson('acc-list')).toEqual([
      { key_id: first.key_id, label: 'Portal A feed', endpoints: ['portala'], origins: null, active: true, created_at: first.created_at, expires_at: null, captcha: null },
      { key_id: second.key_id, label: null, endpoints: ['website'], origins: [SHOP], active: true, created_at: second.created_at, expires_at: null, captcha: null },
    ]);
  });

  it('never prints a key or a hash, as a table or as JSON', async () => {
    const created = await createJson('--label', 'secret-free');
    const hash = hashApiKey(created.key);
    for (const output of [await admin('list-keys', '--account', 'acc-keys'), await admin('list-keys', '--account', 'acc-keys', '--json')]) {
      expect(output.code).toBe(0);
      expect(output.stdout).toContain(created.key_id);
      for (const text of [output.stdout, output.stderr]) {
        expect(text).not.toContain(created.key);
        expect(text).not.toContain(hash);
        expect(text).not.toMatch(/lk_[A-Za-z0-9_-]{32}/);
        expect(text).not.toMatch(/[0-9a-f]{64}/);
      }
    }
  });

  it('prints a readable table without --json', async () => {
    const created = await createJson('--label', 'Table row', '--endpoints', 'social');
    const { stdout } = await admin('list-keys', '--account', 'acc-keys');
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^key_id\s+label\s+endpoints\s+origins\s+active\s+created_at\s+expires_at\s+captcha$/);
    expect(lines.find((line) => line.startsWith(created.key_id))).toMatch(/Table row\s+social\s+yes\s+\S+\s+never$/);
    expect(lines.at(-1)).toMatch(/^\d+ key\(s\)$/);
  });

  it('says so for an account without keys', async () => {
    expect(await admin('list-keys', '--account', 'acc-empty')).toMatchObject({ code: 0, stdout: 'No API keys with a key id.\n' });
    expect(await listJson('acc-empty')).toEqual([]);
  });

  it('refuses an unknown account with exit code 1, and a missing --account with exit code 2', async () => {
    expect(await admin('list-keys', '--account', 'acc-nobody')).toMatchObject({ code: 1, stderr: 'admin list-keys: account "acc-nobody" does not exist\n' });
    const { code, stderr } = await admin('list-keys');
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('admin list-keys: --account is required');
  });
});

describe('admin revoke-key', () => {
  it('revokes a key from its key id alone: it then answers 401 and is listed inactive', async () => {
    const created = await createJson();
    expect(await admin('revoke-key', '--id', created.key_id)).toEqual({ code: 0, stdout: `API key ${created.key_id} revoked.\n`, stderr: '' });
    expect((await service.call('portala', { apiKey: created.key, body: validBody('portala', project) })).body.message).toBe('Invalid API credentials');
    expect((await listJson()).find((key) => key.key_id === created.key_id)).toMatchObject({ active: false });
  });

  it('revokes a key given in plaintext, naming its key id', async () => {
    const created = await createJson();
    expect(await admin('revoke-key', created.key)).toMatchObject({ code: 0, stdout: `API key ${created.key_id} revoked.\n` });
  });

  it('reads the key from standard input when given as -, so it is in no argument list or npm header line', async () => {
    const created = await createJson();
    let stdout = '';
    let stderr = '';
    const code = await runAdmin(['revoke-key', '-'], { env, stdin: async () => `${created.key}\n`, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `API key ${created.key_id} revoked.\n`, stderr: '' });
    expect((await service.call('portala', { apiKey: created.key, body: validBody('portala', project) })).body.message).toBe('Invalid API credentials');
    stderr = '';
    const empty = await runAdmin(['revoke-key', '-'], { env, stdin: async () => '\n', stdout: () => undefined, stderr: (text) => void (stderr += text) });
    expect(empty).toBe(2);
    expect(stderr).toContain('no key on standard input');
  });

  it('refuses an unknown key id or key with exit code 1', async () => {
    expect(await admin('revoke-key', '--id', 'key_nothere')).toEqual({ code: 1, stdout: '', stderr: 'admin revoke-key: no API key has the key id "key_nothere"\n' });
    expect(await admin('revoke-key', 'lk_nothere')).toEqual({ code: 1, stdout: '', stderr: 'admin revoke-key: no such API key\n' });
  });

  it.each([
    [[], 'give the key to revoke, or --id KEY_ID'],
    [['lk_x', '--id', 'key_x'], 'give the key or --id KEY_ID, not both'],
    [['--id', ''], '--id is required'],
    [['--id'], "Option '--id <value>' argument missing"],
  ])('refuses %j with exit code 2', async (args, message) => {
    const { code, stderr } = await admin('revoke-key', ...args);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(`admin revoke-key: ${message}`);
  });
});

describe('admin rotate-key', () => {
  it("prints a new key like create-key, with the old one's account, label, endpoints and origins and no expiry", async () => {
    const old = await createJson('--label', 'Landing', '--origins', SHOP, '--expires', inAnHour());
    const { code, stdout, stderr } = await admin('rotate-key', '--id', old.key_id, '--json');
    expect(code).toBe(0);
    const rotated = JSON.parse(stdout);
    expect(rotated).toMatchObject({ account_id: 'acc-keys', label: 'Landing', endpoints: ['website'], origins: [SHOP], expires_at: null });
    expect(rotated.key_id).not.toBe(old.key_id);
    expect(rotated.replaces.key_id).toBe(old.key_id);
    expect(stderr).toContain(`API key ${rotated.key_id} replaces ${old.key_id}`);
    const plain = await admin('rotate-key', '--id', rotated.key_id);
    expect(plain.stdout).toMatch(/^lk_[A-Za-z0-9_-]{32}\n$/);
  });

  it('keeps the old key working for a day by default, listed with the end of its grace as its expiry', async () => {
    const old = await createJson('--endpoints', 'portala');
    const before = Date.now();
    const rotated = JSON.parse((await admin('rotate-key', '--id', old.key_id, '--json')).stdout);
    expect((await service.call('portala', { apiKey: old.key, body: validBody('portala', project) })).status).toBe(200);
    expect((await service.call('portala', { apiKey: rotated.key, body: validBody('portala', project) })).status).toBe(200);
    const listed = (await listJson()).find((key) => key.key_id === old.key_id)!;
    expect(listed.active).toBe(true);
    const graceEnd = Date.parse(listed.expires_at as string);
    expect(graceEnd - before).toBeGreaterThanOrEqual(86_400_000 - 1000);
    expect(graceEnd - Date.now()).toBeLessThanOrEqual(86_400_000);
  });

  it('ends the old key at once with --grace 0: it answers 401 and is listed inactive', async () => {
    const old = await createJson();
    const rotated = JSON.parse((await admin('rotate-key', '--id', old.key_id, '--grace', '0', '--json')).stdout);
    expect((await service.call('social', { apiKey: old.key, body: validBody('social', project) })).body.message).toBe('Invalid API credentials');
    expect((await listJson()).find((key) => key.key_id === old.key_id)).toMatchObject({ active: false });
    expect(await admin('rotate-key', '--id', old.key_id)).toMatchObject({ code: 1, stderr: expect.stringContaining('is revoked and cannot be rotated') });
    expect((await service.call('social', { apiKey: rotated.key, body: validBody('social', { projectID: 'PRJ-1', campaignID: 'CMP-1' }, { platform: 'fb' }) })).status).not.toBe(401);
  });

  it('gives the new key an expiry with --expires', async () => {
    const old = await createJson();
    const expires = inAnHour();
    const rotated = JSON.parse((await admin('rotate-key', '--id', old.key_id, '--expires', expires, '--json')).stdout);
    expect(rotated.expires_at).toBe(expires);
  });

  it('renews an expired key', async () => {
    const { key, keyId } = await service.issueScopedKey({ accountId: 'acc-keys', expiresAt: new Date(Date.now() - 1000).toISOString() }, () => new Date(Date.now() - 60_000));
    expect((await service.call('portala', { apiKey: key, body: validBody('portala', project) })).status).toBe(401);
    const rotated = JSON.parse((await admin('rotate-key', '--id', keyId, '--json')).stdout);
    expect((await service.call('portala', { apiKey: rotated.key, body: validBody('portala', project) })).status).toBe(200);
  });

  it('refuses a revoked key, and an unknown key id, with exit code 1', async () => {
    const old = await createJson();
    await admin('revoke-key', '--id', old.key_id);
    expect(await admin('rotate-key', '--id', old.key_id)).toEqual({
      code: 1,
      stdout: '',
      stderr: `admin rotate-key: API key ${old.key_id} is revoked and cannot be rotated; create a new key instead\n`,
    });
    expect(await admin('rotate-key', '--id', 'key_nothere')).toMatchObject({ code: 1, stderr: 'admin rotate-key: no API key has the key id "key_nothere"\n' });
  });

  it.each([
    [['--grace', '-1'], '--grace: the grace period must be a whole number of seconds, 0 or more, not -1'],
    [['--grace', '1.5'], '--grace: the grace period must be a whole number of seconds, 0 or more, not 1.5'],
    [['--grace', 'soon'], '--grace must be a whole number of seconds, not "soon"'],
    [['--grace', ''], '--grace must be a whole number of seconds, not ""'],
    [['--expires', '2001-01-01'], '--expires: the expiry 2001-01-01T00:00:00.000Z is in the past'],
    [['--expires', 'tomorrow'], '--expires: the expiry must be an ISO-8601 date or date-time'],
  ])('refuses %j with the problem named and exit code 2, changing nothing', async (options, message) => {
    const old = await createJson();
    const before = await configItems();
    const { code, stderr } = await admin('rotate-key', '--id', old.key_id, ...options);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toContain(`admin rotate-key: ${message}`);
    expect(await configItems()).toEqual(expect.arrayContaining(before));
    expect((await configItems()).length).toBe(before.length);
  });

  it('refuses a missing --id with exit code 2', async () => {
    const { code, stderr } = await admin('rotate-key');
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('admin rotate-key: --id is required');
  });
});

describe('seed files with key options', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-keys-'));
  const seedFile = (content: unknown) => {
    const file = path.join(dir, `seed-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(content));
    return file;
  };
  const seed = {
    accounts: [{ id: 'acc-seeded', name: 'Seeded', projects: [{ id: 'PRJ-1', campaigns: [{ id: 'CMP-1' }] }], subSources: { website: ['Skyline landing page'] } }],
    apiKeys: [
      { key: 'seeded-browser-key', accountId: 'acc-seeded', keyId: 'key_landing', label: 'Landing page', origins: ['http://127.0.0.1:8080'] },
      { key: 'seeded-portal-key', accountId: 'acc-seeded', endpoints: ['portala'], expiresAt: '2999-12-31T00:00:00Z' },
      { key: 'seeded-expired-key', accountId: 'acc-seeded', expiresAt: '2001-01-01T00:00:00Z' },
    ],
  };

  it('applies keyId, label, endpoints, origins and expiresAt, idempotently, and lists the keys', async () => {
    expect((await admin('seed', seedFile(seed))).code).toBe(0);
    const first = await listJson('acc-seeded');
    expect((await admin('seed', seedFile(seed))).code).toBe(0);
    const second = await listJson('acc-seeded');
    expect(second).toEqual(first);
    expect(first).toHaveLength(3);
    expect(first.find((key) => key.key_id === 'key_landing')).toMatchObject({ label: 'Landing page', endpoints: ['website'], origins: ['http://127.0.0.1:8080'] });
    expect(first.find((key) => (key.endpoints as string[] | null)?.[0] === 'portala')).toMatchObject({ expires_at: '2999-12-31T00:00:00.000Z', key_id: expect.stringMatching(/^key_/) });

    const website = await service.call('website', { apiKey: 'seeded-browser-key', body: validBody('website', project), headers: { origin: 'http://127.0.0.1:8080' } });
    expect(website.status).toBe(200);
    expect((await service.call('portalb', { apiKey: 'seeded-portal-key', body: validBody('portalb', project) })).status).toBe(403);
    expect((await service.call('portala', { apiKey: 'seeded-expired-key', body: validBody('portala', project) })).status).toBe(401);
  });

  it('keeps a rotated seed key retired when the seed is applied again', async () => {
    expect((await admin('seed', seedFile(seed))).code).toBe(0);
    expect((await admin('rotate-key', '--id', 'key_landing', '--grace', '0')).code).toBe(0);
    expect((await admin('seed', seedFile(seed))).code).toBe(0);
    const answer = await service.call('website', { apiKey: 'seeded-browser-key', body: validBody('website', project), headers: { origin: 'http://127.0.0.1:8080' } });
    expect(answer.status).toBe(401);
  });

  it.each([
    [{ endpoints: ['portalz'] }, 'apiKeys[0]: endpoints: unknown endpoint "portalz"'],
    [{ origins: ['https://shop.example/'] }, 'apiKeys[0]: origins: "https://shop.example/" is not an origin'],
    [{ origins: [SHOP], endpoints: ['social'] }, 'apiKeys[0]: endpoints: a key with origins is a browser key'],
    [{ keyId: 'not-an-id' }, 'apiKeys[0].keyId must be key_ followed by letters and digits'],
    [{ expiresAt: 'soon' }, 'apiKeys[0]: expiresAt: the expiry must be an ISO-8601'],
    [{ label: 7 }, 'apiKeys[0]: label: must be a string'],
  ])('refuses a key entry with %j, naming the problem, exit code 1', async (entry, message) => {
    const { code, stderr } = await admin('seed', seedFile({ accounts: [], apiKeys: [{ key: 'bad-seed-key', accountId: 'acc-keys', ...entry }] }));
    expect(code).toBe(1);
    expect(stderr).toContain(message);
    expect(stderr).not.toContain('bad-seed-key');
  });

  it('refuses a key id that another key already has, exit code 1', async () => {
    const { code, stderr } = await admin('seed', seedFile({ accounts: [], apiKeys: [{ key: 'another-key', accountId: 'acc-keys', keyId: 'key_landing' }] }));
    expect(code).toBe(1);
    expect(stderr).toContain('key id key_landing belongs to another API key');
  });
});

describe('keys stored before key ids existed', () => {
  it('keep working on every endpoint, and can still be revoked by their plaintext', async () => {
    const legacy = await service.issueKey('acc-keys');
    expect((await service.call('portalb', { apiKey: legacy, body: validBody('portalb', project) })).status).toBe(200);
    expect(await admin('revoke-key', legacy)).toMatchObject({ code: 0, stdout: 'API key revoked.\n' });
    expect((await service.call('portalb', { apiKey: legacy, body: validBody('portalb', project) })).status).toBe(401);
  });
});
