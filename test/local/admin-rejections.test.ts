/**
 * `npm run admin -- rejections`: the rejected submissions the handlers recorded, listed from this
 * file's own tables on the test run's DynamoDB Local.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let env: NodeJS.ProcessEnv;
let key: string;
const ACCOUNT = 'acc-rejections';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

/** Runs an admin command against this file's tables, as `npm run admin -- ...argv` would. */
const admin = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

const listed = async (...options: string[]) => {
  const { code, stdout, stderr } = await admin('rejections', '--account', ACCOUNT, '--json', ...options);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(stdout) as Record<string, any>[];
};

/** A request the handlers refuse with 422, so that they record it. */
const refused = async (...args: Parameters<TestService['call']>) => {
  const answer = await service.call(...args);
  expect(answer.status).toBe(422);
  return answer;
};

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** The first batch: one rejection of each kind; `between` is a time after all of them. */
let first: { requestId: string; message: string }[] = [];
let duplicateMobile: string;

beforeAll(async () => {
  service = await testService({ configCacheTtlSeconds: 0 });
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
  await service.seedAccount({ id: ACCOUNT, duplicateSetting: 'ignore', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] }, website: ['Skyline landing page'], social: ['fb'] });
  await service.seedAccount({ id: 'acc-other', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
  key = await service.issueKey(ACCOUNT);

  const original = validBody('website', project);
  duplicateMobile = original.mobile_number;
  expect((await service.call('website', { apiKey: key, body: original })).status).toBe(200);
  const answers = [
    await refused('website', { apiKey: key, body: { ...original, name: 'Asha V.' } }),
    await refused('portala', { apiKey: key, body: validBody('portala', { projectID: 'PRJ-9', campaignID: 'CMP-1' }) }),
    await refused('portalb', { apiKey: key, body: validBody('portalb', { projectID: 'PRJ-1', campaignID: 'CMP-2' }) }),
    await refused('social', { apiKey: key, body: validBody('social', project, { platform: 'ig' }) }),
    await refused('website', { apiKey: key, body: validBody('website', project, { mobile_number: '12345', email: 'not-an-email' }) }),
  ];
  first = answers.map((answer) => ({ requestId: answer.headers['x-request-id']!, message: answer.body.message }));
  // Another account's rejection is not this account's.
  await refused('website', { apiKey: await service.issueKey('acc-other'), body: validBody('website', project, { sub_source: 'Elsewhere' }) });
  await tick();
  await refused('website', { apiKey: key, body: validBody('website', project, { sub_source: 'Unknown page' }) });
});

describe('admin rejections', () => {
  it("lists the account's rejected submissions as JSON, newest first, with id, created_at, reason, masked mobile and fields", async () => {
    const rejections = await listed();
    expect(rejections).toHaveLength(first.length + 1);
    expect(rejections.map((r) => r.created_at)).toEqual(rejections.map((r) => r.created_at).sort().reverse());
    const oldestFirst = [...rejections].reverse();
    expect(oldestFirst.slice(0, first.length).map((r) => ({ requestId: r.requestId, message: r.message }))).toEqual(first);
    expect(oldestFirst[0]).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      created_at: oldestFirst[0]!.at,
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      requestId: first[0]!.requestId,
      endpoint: expect.any(String),
      reason: expect.any(String),
      message: 'Lead already exists',
      mobile: `******${duplicateMobile.slice(-4)}`,
      fields: { projectID: 'PRJ-1' },
    });
    expect(oldestFirst.map((r) => [r.message, r.fields])).toEqual([
      ['Lead already exists', { projectID: 'PRJ-1' }],
      ['Project not found', { projectID: 'PRJ-9' }],
      ['Campaign not found', { projectID: 'PRJ-1', campaignID: 'CMP-2' }],
      ['Sub source not found', { platform: 'ig' }],
      [expect.any(String), { mobile_number: expect.any(Array), email: expect.any(Array) }],
      ['Sub source not found', { sub_source: 'Unknown page' }],
    ]);
    expect(new Set(rejections.map((r) => r.endpoint)).size).toBe(4);
    expect(new Set(rejections.map((r) => r.id)).size).toBe(rejections.length);
    expect(JSON.stringify(rejections)).not.toContain(duplicateMobile);
  });

  it('prints at most --limit records, the newest, and the cursor of the next page on standard error', async () => {
    const all = await listed();
    const { code, stdout, stderr } = await admin('rejections', '--account', ACCOUNT, '--json', '--limit', '2');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual(all.slice(0, 2));
    const cursor = /--cursor (\S+)\n$/.exec(stderr)?.[1];
    expect(cursor).toBeDefined();
    const second = await admin('rejections', '--account', ACCOUNT, '--json', '--limit', '2', '--cursor', cursor!);
    expect(JSON.parse(second.stdout)).toEqual(all.slice(2, 4));
    expect((await admin('rejections', '--account', ACCOUNT, '--json')).stderr).toBe('');
  });

  it('names the next page with the same page size, reason and --json, quiet for a pipe, so it can be run as printed', async () => {
    const { stderr } = await admin('rejections', '--account', ACCOUNT, '--reason', 'sub_source_not_found', '--limit', '1', '--json');
    const cursor = /--cursor (\S+)\n$/.exec(stderr)![1]!;
    expect(stderr).toBe(`More: npm run -s admin -- rejections --account ${ACCOUNT} --limit 1 --reason sub_source_not_found --json --cursor ${cursor}\n`);
    const [, ...argv] = stderr.trim().split(' -- ');
    const next = await admin(...argv.join(' -- ').split(' '));
    expect(next.code).toBe(0);
    expect(JSON.parse(next.stdout)).toEqual([expect.objectContaining({ reason: 'sub_source_not_found' })]);
  });

  it('lists one reason with --reason', async () => {
    const notFound = await listed('--reason', 'sub_source_not_found');
    expect(notFound.map((r) => r.fields)).toEqual([{ sub_source: 'Unknown page' }, { platform: 'ig' }]);
    expect(await listed('--reason', 'honeypot')).toEqual([]);
  });

  it.each([['0'], ['201'], ['1.5'], ['ten'], ['-1']])('refuses --limit %s with exit code 2', async (limit) => {
    const { code, stderr } = await admin('rejections', '--account', ACCOUNT, '--limit', limit);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^admin rejections: limit must be a whole number from 1 to 200\n/);
  });

  it('refuses a cursor it did not give, and a cursor of another reason, with exit code 2', async () => {
    const { stderr } = await admin('rejections', '--account', ACCOUNT, '--limit', '1');
    const cursor = /--cursor (\S+)\n$/.exec(stderr)![1]!;
    for (const bad of ['abc', `${cursor}x`, Buffer.from('{"sk":"x"}').toString('base64url'), 'r1.' + Buffer.from(JSON.stringify({ sk: 'nope', reason: null })).toString('base64url')]) {
      expect(await admin('rejections', '--account', ACCOUNT, '--cursor', bad)).toMatchObject({ code: 2, stderr: expect.stringMatching(/^admin rejections: cursor is not one this service gave/) });
    }
    expect((await admin('rejections', '--account', ACCOUNT, '--reason', 'duplicate_lead', '--cursor', cursor)).code).toBe(2);
  });

  it('leaves out records older than 30 days that TTL has not deleted yet', async () => {
    const old = { at: new Date(Date.now() - 31 * 24 * 3_600_000).toISOString(), requestId: 'old-request', endpoint: 'website', reason: 'x', message: 'Project not found', fields: {} };
    await service.repository.rejections.record('acc-other', old);
    const { stdout } = await admin('rejections', '--account', 'acc-other', '--json');
    expect(JSON.parse(stdout).map((r: { fields: unknown }) => r.fields)).toEqual([{ sub_source: 'Elsewhere' }]);
  });

  it('prints a readable table without --json', async () => {
    const rejections = await listed();
    const { code, stdout } = await admin('rejections', '--account', ACCOUNT);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+time\s+endpoint\s+reason\s+message\s+mobile\s+fields$/);
    expect(lines).toHaveLength(rejections.length + 2);
    const oldest = lines.at(-2)!;
    expect(oldest).toContain(rejections.at(-1)!.id);
    expect(oldest).toContain(rejections.at(-1)!.at);
    expect(oldest).toContain('Lead already exists');
    expect(oldest).toContain(`******${duplicateMobile.slice(-4)}`);
    expect(oldest).toMatch(/projectID: PRJ-1$/);
    expect(lines.at(-4)).toMatch(/projectID: PRJ-1; campaignID: CMP-2$/);
    expect(lines[2]).toMatch(/mobile_number: must be .*; email: must be /);
    expect(lines.at(-1)).toBe(`${rejections.length} rejected submission(s)`);
  });

  it('refuses an account that does not exist', async () => {
    expect(await admin('rejections', '--account', 'acc-missing')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'admin rejections: account "acc-missing" does not exist\n',
    });
  });

  it('needs --account, and prints its usage with --help and in the general help', async () => {
    expect(await admin('rejections')).toMatchObject({ code: 2, stderr: expect.stringMatching(/^admin rejections: --account is required\n/) });
    const help = await admin('rejections', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run admin -- rejections --account ID \[--limit N\] \[--reason R\] \[--cursor C\] \[--json\]\n/);
    expect((await admin('--help')).stdout).toMatch(/^  rejections +One page of an account's rejected submissions/m);
  });

  it('says in the table how many field problems a bounded record left out', async () => {
    await service.seedAccount({ id: 'acc-flooded', projects: { 'PRJ-1': ['CMP-1'] } });
    const floodKey = await service.issueKey('acc-flooded');
    const unknown = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`x${i}`, 'y']));
    expect((await service.call('portala', { apiKey: floodKey, body: validBody('portala', project, unknown) })).status).toBe(422);
    const { stdout } = await admin('rejections', '--account', 'acc-flooded');
    expect(stdout).toContain('; and 10 more');
  });
});
