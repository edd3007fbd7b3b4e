/**
 * `npm run admin -- person` and `erase` (CONTRACT.md section 12): an access request and an erasure
 * request from the terminal, on this file's own tables on the test run's DynamoDB Local, with the exit
 * codes of section 7 (2 bad arguments, 1 an unknown account).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let env: NodeJS.ProcessEnv;
let key: string;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const mobile = uniqueMobile();

const admin = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

beforeAll(async () => {
  service = await testService();
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
  await service.seedAccount({ id: 'acc-cli', duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] } });
  key = await service.issueKey('acc-cli');
  for (let i = 0; i < 2; i++) await service.call('portala', { apiKey: key, body: validBody('portala', project, { mobile_number: mobile, email: 'Cli.Person@Example.com' }) });
}, 30_000);

describe('admin person', () => {
  it('prints the person’s leads and records as JSON with --json', async () => {
    const { code, stdout, stderr } = await admin('person', '--account', 'acc-cli', '--mobile', `+91 ${mobile}`, '--json');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const found = JSON.parse(stdout);
    expect(found.leads).toHaveLength(2);
    expect(found.leads.every((lead: { mobile_number: string }) => lead.mobile_number === mobile)).toBe(true);
    expect(found.rejections).toEqual([]);
  });

  it('prints a table for a terminal', async () => {
    const { code, stdout } = await admin('person', '--account', 'acc-cli', '--email', 'cli.person@example.com');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^id +created_at.*\n.*\n.*\n2 lead\(s\)\n\nNo rejected submissions\.\n$/);
  });

  it('refuses a mobile section 2 refuses, or neither handle, with exit 2; an unknown account with exit 1', async () => {
    expect(await admin('person', '--account', 'acc-cli', '--mobile', '12345')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--mobile must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9'),
    });
    expect((await admin('erase', '--account', 'acc-cli')).code).toBe(2);
    expect((await admin('erase', '--account', 'acc-cli', '--mobile', mobile, '--email', 'a@b.co')).code).toBe(2);
    expect(await admin('erase', '--account', 'acc-nobody', '--mobile', mobile)).toMatchObject({ code: 1, stderr: expect.stringContaining('acc-nobody') });
  });
});

describe('admin erase', () => {
  it('erases the person and prints the counts, then zeros', async () => {
    expect(await admin('erase', '--account', 'acc-cli', '--mobile', mobile, '--json')).toMatchObject({ code: 0, stdout: '{\n  "leads": 2,\n  "rejections": 0,\n  "alternate_numbers": 0\n}\n' });
    expect(await admin('erase', '--account', 'acc-cli', '--mobile', mobile)).toMatchObject({ code: 0, stdout: 'Erased 0 lead(s), 0 rejection record(s), 0 alternate number(s).\n' });
    expect(JSON.parse((await admin('person', '--account', 'acc-cli', '--mobile', mobile, '--json')).stdout)).toEqual({ leads: [], rejections: [] });
  });
});
