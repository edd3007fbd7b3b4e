import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { hashApiKey } from '../../shared/domain/account-directory.ts';
import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { runAdmin } from '../../scripts/admin.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let env: NodeJS.ProcessEnv;
const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-admin-'));
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

/** Runs an admin command against this file's tables, as `npm run admin -- ...argv` would. */
const admin = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

const seedFile = (name: string, content: unknown) => {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};

const configItems = async () => {
  const { Items = [] } = await createDocumentClient({ client: service.client }).send(new ScanCommand({ TableName: service.tables.config }));
  return Items.sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`));
};

const seed = {
  accounts: [
    {
      id: 'acc-admin',
      name: 'Admin Realty',
      duplicateHandling: 'ignore',
      projects: [
        { id: 'PRJ-1', name: 'Skyline Towers', campaigns: [{ id: 'CMP-1', name: 'Diwali launch' }] },
        { id: 'PRJ-2', name: 'Riverside', campaigns: [{ id: 'CMP-2', name: 'Monsoon offer' }] },
      ],
      subSources: { website: ['Skyline landing page'], social: ['fb', 'ig'] },
    },
  ],
  apiKeys: [
    { key: 'admin-test-key', accountId: 'acc-admin', active: true },
    { key: 'orphan-test-key', accountId: 'acc-nobody', active: true },
  ],
};

beforeAll(async () => {
  service = await testService({ configCacheTtlSeconds: 0 });
  env = {
    DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT,
    CONFIG_TABLE_NAME: service.tables.config,
    LEADS_TABLE_NAME: service.tables.leads,
  };
  const { code, stderr } = await admin('seed', seedFile('seed.json', seed));
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
});

describe('admin seed', () => {
  it('applies accounts and keys so the endpoints answer for them', async () => {
    expect((await service.call('website', { apiKey: 'admin-test-key', body: validBody('website', project) })).status).toBe(200);
    expect((await service.call('portala', { apiKey: 'admin-test-key', body: validBody('portala', { projectID: 'PRJ-2', campaignID: 'CMP-2' }) })).status).toBe(200);
    expect(await service.call('social', { apiKey: 'admin-test-key', body: validBody('social', project, { platform: 'wp' }) })).toMatchObject({
      status: 422,
      body: { message: 'Sub source not found' },
    });
    expect((await service.call('website', { apiKey: 'orphan-test-key', body: validBody('website', project) })).body.message).toBe('Client not found');
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const items = JSON.stringify(await configItems());
    expect(items).not.toContain('admin-test-key');
    expect(items).toContain(hashApiKey('admin-test-key'));
  });

  it('changes nothing when the same seed is applied again', async () => {
    const before = await configItems();
    expect((await admin('seed', seedFile('seed.json', seed))).code).toBe(0);
    expect(await configItems()).toEqual(before);
  });

  it('writes nothing from a seed with a problem, and names the problem', async () => {
    const before = await configItems();
    const broken = structuredClone(seed) as any;
    broken.accounts.unshift({ id: 'acc-new', name: 'New', projects: [] });
    broken.accounts[1].projects[1].campaigns.push({ id: 'CMP-1' });
    const { code, stdout, stderr } = await admin('seed', seedFile('broken.json', broken));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('campaign "CMP-1" is in two projects, "PRJ-1" and "PRJ-2"');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(await configItems()).toEqual(before);
  });

  it('refuses a file that is not JSON', async () => {
    const { code, stderr } = await admin('seed', seedFile('not-json.json', '{"accounts": ['));
    expect(code).toBe(1);
    expect(stderr).toMatch(/not valid JSON/);
  });
});

describe('admin create-key and revoke-key', () => {
  it('prints a new key once, which then works, and stores only its hash', async () => {
    const { code, stdout, stderr } = await admin('create-key', '--account', 'acc-admin');
    expect(code).toBe(0);
    const key = stdout.trim();
    expect(key).toMatch(/^lk_[A-Za-z0-9_-]{32}$/);
    expect(stderr).not.toContain(key);
    expect(await service.repository.keys.findApiKey(hashApiKey(key))).toEqual({ accountId: 'acc-admin', active: true, keyId: expect.stringMatching(/^key_/) });
    expect(JSON.stringify(await configItems())).not.toContain(key);
    expect((await service.call('portalb', { apiKey: key, body: validBody('portalb', project) })).status).toBe(200);
  });

  it('refuses to create a key for an account that does not exist', async () => {
    const { code, stderr } = await admin('create-key', '--account', 'acc-missing');
    expect(code).toBe(1);
    expect(stderr).toBe('admin create-key: account "acc-missing" does not exist\n');
  });

  it('revokes a key, which then answers Invalid API credentials', async () => {
    const key = (await admin('create-key', '--account', 'acc-admin')).stdout.trim();
    expect(await admin('revoke-key', key)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^API key key_[a-z0-9]+ revoked.\n$/) });
    expect(await service.repository.keys.findApiKey(hashApiKey(key))).toMatchObject({ accountId: 'acc-admin', active: false });
    expect((await service.call('website', { apiKey: key, body: validBody('website', project) })).body.message).toBe('Invalid API credentials');
  });

  it('says so when the key to revoke does not exist, and stores nothing', async () => {
    const before = await configItems();
    expect(await admin('revoke-key', 'no-such-key')).toMatchObject({ code: 1, stderr: 'admin revoke-key: no such API key\n' });
    expect(await configItems()).toEqual(before);
  });
});

describe('admin set-duplicates', () => {
  it('switches an account to merge, so a repeated lead links to its original', async () => {
    expect(await admin('set-duplicates', '--account', 'acc-admin', 'merge')).toMatchObject({ code: 0 });
    const body = validBody('website', project);
    const first = await service.call('website', { apiKey: 'admin-test-key', body });
    const second = await service.call('website', { apiKey: 'admin-test-key', body });
    expect(second.body.data).toMatchObject({ is_repeated: true, parent_lead_id: first.body.data.id });
    expect(await admin('set-duplicates', '--account', 'acc-admin', 'ignore')).toMatchObject({ code: 0 });
    expect((await service.call('website', { apiKey: 'admin-test-key', body })).body.message).toBe('Lead already exists');
  });

  it('refuses an account that does not exist', async () => {
    expect(await admin('set-duplicates', '--account', 'acc-missing', 'create')).toMatchObject({
      code: 1,
      stderr: 'admin set-duplicates: account "acc-missing" does not exist\n',
    });
  });
});

describe('admin leads', () => {
  it('lists the lead records of an account as JSON, oldest first, exactly as answered', async () => {
    const answered = [];
    for (const name of ['website', 'portala', 'portalb'] as const) {
      answered.push((await service.call(name, { apiKey: 'admin-test-key', body: validBody(name, project, { email: 'x@example.com' }) })).body.data);
    }
    const { code, stdout } = await admin('leads', '--account', 'acc-admin', '--json');
    expect(code).toBe(0);
    const leads = JSON.parse(stdout);
    expect(leads.map((lead: { id: string }) => lead.id)).toEqual([...leads.map((lead: { id: string }) => lead.id)].sort());
    expect(leads.slice(-3)).toEqual(answered);
    expect(leads.some((lead: { projectID: string }) => lead.projectID === 'PRJ-2')).toBe(true);
  });

  it('prints every lead with its members in one order: the lead record first, then the endpoint fields by name', async () => {
    const body = validBody('website', project, { email: 'y@example.com', utm_source: 'google', notes: 'n', location: 'Pune', gclid: 'g', alternate_number: '9123456780' });
    await service.call('website', { apiKey: 'admin-test-key', body });
    const leads = JSON.parse((await admin('leads', '--account', 'acc-admin', '--json')).stdout) as Record<string, unknown>[];
    const record = ['id', 'name', 'mobile_number', 'email', 'alternate_number', 'projectID', 'campaignID', 'source', 'sub_source', 'is_repeated', 'parent_lead_id', 'created_at'];
    for (const lead of leads) {
      const members = Object.keys(lead);
      expect(members).toEqual([...record.filter((name) => members.includes(name)), ...members.filter((name) => !record.includes(name)).sort()]);
    }
    expect(Object.keys(leads.at(-1)!)).toEqual([...record, 'gclid', 'location', 'notes', 'utm_source']);
    // Twice the same text.
    expect((await admin('leads', '--account', 'acc-admin', '--json')).stdout).toBe(JSON.stringify(leads, null, 2) + '\n');
  });

  it('lists one project with --project', async () => {
    const leads = JSON.parse((await admin('leads', '--account', 'acc-admin', '--project', 'PRJ-2', '--json')).stdout);
    expect(leads.length).toBeGreaterThan(0);
    expect(leads.every((lead: { projectID: string }) => lead.projectID === 'PRJ-2')).toBe(true);
  });

  it('prints a readable table without --json', async () => {
    const leads = JSON.parse((await admin('leads', '--account', 'acc-admin', '--json')).stdout);
    const { code, stdout } = await admin('leads', '--account', 'acc-admin');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+created_at\s+project\s+campaign\s+source\s+sub_source\s+name\s+mobile/);
    expect(lines).toHaveLength(leads.length + 2);
    expect(lines[1]).toContain(leads[0].id);
    expect(lines[1]).toContain(leads[0].mobile_number);
    expect(lines.at(-1)).toBe(`${leads.length} lead(s)`);
  });

  it("still lists a retired project's leads, with and without --project", async () => {
    await service.seedAccount({ id: 'acc-retiring', projects: { 'PRJ-R': ['CMP-R'], 'PRJ-1': ['CMP-1'] } });
    const key = await service.issueKey('acc-retiring');
    const kept = (await service.call('portala', { apiKey: key, body: validBody('portala', { projectID: 'PRJ-R', campaignID: 'CMP-R' }) })).body.data;
    await new AccountAdmin(service.repository.accounts).retireProject('acc-retiring', 'PRJ-R');
    // Retired indeed: a new lead for it is refused.
    expect((await service.call('portala', { apiKey: key, body: validBody('portala', { projectID: 'PRJ-R', campaignID: 'CMP-R' }) })).body.message).toBe('Project not found');
    for (const args of [[], ['--project', 'PRJ-R']]) {
      const { code, stdout } = await admin('leads', '--account', 'acc-retiring', ...args, '--json');
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual([kept]);
    }
  });

  it('refuses an unknown account or project', async () => {
    expect(await admin('leads', '--account', 'acc-missing')).toMatchObject({ code: 1, stderr: 'admin leads: account "acc-missing" does not exist\n' });
    expect((await admin('leads', '--account', 'acc-admin', '--project', 'PRJ-9')).stderr).toContain('project "PRJ-9" is not a project of account acc-admin');
  });
});

describe('admin arguments and help', () => {
  it.each(['seed', 'create-key', 'list-keys', 'revoke-key', 'rotate-key', 'set-duplicates', 'leads', 'rejections'])('prints the usage of %s with --help', async (command) => {
    const { code, stdout } = await admin(command, '--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Usage: npm run admin -- ${command}`));
  });

  it('prints every command with --help', async () => {
    const { code, stdout } = await admin('--help');
    expect(code).toBe(0);
    for (const command of ['seed', 'create-key', 'list-keys', 'revoke-key', 'rotate-key', 'set-duplicates', 'leads']) {
      expect(stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
  });

  it.each([
    [['leads'], 'admin leads: --account is required'],
    [['leads', '--account', 'acc-admin', '--bogus'], "admin leads: Unknown option '--bogus'"],
    [['set-duplicates', '--account', 'acc-admin', 'sometimes'], 'admin set-duplicates: the setting must be one of ignore, create, merge, not "sometimes"'],
    [['set-duplicates', '--account', 'acc-admin'], 'admin set-duplicates: expected SETTING, got none'],
    [['seed'], 'admin seed: expected FILE, got none'],
    [['revoke-key', 'a', 'b'], 'admin revoke-key: expected KEY, got "a" "b"'],
    [['frobnicate'], 'admin frobnicate: unknown command "frobnicate"'],
    [[], 'Usage: npm run admin -- <command>'],
  ])('answers %j with a one-line error, the usage and exit code 2', async (argv, message) => {
    const { code, stdout, stderr } = await admin(...argv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toContain(message);
    expect(stderr).toContain('Usage: npm run admin --');
  });

  it('asks for the stack table names when no local endpoint is set', async () => {
    const { code, stderr } = await runAdminWith({}, 'leads', '--account', 'acc-admin');
    expect(code).toBe(1);
    expect(stderr).toContain('set CONFIG_TABLE_NAME and LEADS_TABLE_NAME');
  });
});

const runAdminWith = async (environment: NodeJS.ProcessEnv, ...argv: string[]) => {
  let stderr = '';
  const code = await runAdmin(argv, { env: environment, stdout: () => undefined, stderr: (text) => void (stderr += text) });
  return { code, stderr };
};
