/**
 * Portal logins through the admin CLI (CONTRACT.md section 17): add-portal (the credential from
 * PORTAL_CREDENTIAL or standard input, sealed, never printed), portals, remove-portal and pull-portal,
 * against DynamoDB Local and 99acres faked on its wire.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { fakeNinetyNineAcres, istText } from '../support/fake-portals.ts';
import { portalTestService, type PortalTestService } from '../support/portal-service.ts';
import { uniqueMobile } from '../support/service.ts';

let portal: Awaited<ReturnType<typeof fakeNinetyNineAcres>>;
let service: PortalTestService;
let env: NodeJS.ProcessEnv;

const admin = async (argv: string[], more: { env?: NodeJS.ProcessEnv; stdin?: string } = {}) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, {
    env: { ...env, ...more.env },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    ...(more.stdin !== undefined && { stdin: async () => more.stdin! }),
  });
  return { code, stdout, stderr };
};

const add = (login: string, credential: string | undefined, ...more: string[]) =>
  admin(['add-portal', '--account', 'acc-cli', '--portal', '99acres', '--login', login, '--project', 'PRJ-1', '--campaign', 'CMP-1', ...more], credential === undefined ? {} : { env: { PORTAL_CREDENTIAL: credential } });

beforeAll(async () => {
  portal = await fakeNinetyNineAcres();
  service = await portalTestService({ baseUrls: { '99acres': portal.url } });
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads, PORTAL_99ACRES_URL: portal.url };
  await service.seedAccount({ id: 'acc-cli', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  await service.seedAccount({ id: 'acc-other', projects: { 'PRJ-1': ['CMP-1'] } });
});
afterAll(async () => portal.close());

describe('admin add-portal', () => {
  it('connects a login with its credential from PORTAL_CREDENTIAL, stores it sealed, and never prints or lists it', async () => {
    const { code, stdout, stderr } = await add('cli-one', 'Sup3r$ecret-99', '--json');

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({
      portal: '99acres',
      login: 'cli-one',
      project_id: 'PRJ-1',
      campaign_id: 'CMP-1',
      map: {},
      connected_at: expect.any(String),
      pulled_through: null,
      last_pull_at: null,
      state: 'ok',
      failing: null,
      enquiries_stored: 0,
    });
    const { Items = [] } = await service.db.send(new ScanCommand({ TableName: service.tables.config }));
    expect(JSON.stringify(Items)).not.toContain('Sup3r$ecret-99');
    const listed = await admin(['portals', '--account', 'acc-cli', '--json']);
    expect(listed.stdout).not.toContain('Sup3r$ecret-99');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ login: 'cli-one' })]);
  });

  it('reads the credential from standard input, and refuses a new login without one (exit 2)', async () => {
    expect((await admin(['add-portal', '--account', 'acc-cli', '--portal', '99acres', '--login', 'cli-stdin', '--project', 'PRJ-1', '--campaign', 'CMP-1'], { stdin: 'from-stdin\n' })).code).toBe(0);
    const refused = await admin(['add-portal', '--account', 'acc-cli', '--portal', '99acres', '--login', 'cli-none', '--project', 'PRJ-1', '--campaign', 'CMP-1'], { stdin: '' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('needs its credential');
  });

  it('maps a portal project to a project and campaign, and refuses an unknown one with nothing stored (exit 1)', async () => {
    const mapped = await add('cli-map', 'pw', '--map', '77=PRJ-2/CMP-2', '--json');
    expect(JSON.parse(mapped.stdout).map).toEqual({ '77': { project_id: 'PRJ-2', campaign_id: 'CMP-2' } });
    const unknown = await add('cli-unknown', 'pw', '--map', '78=PRJ-9/CMP-9');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('project "PRJ-9" is not an active project of account "acc-cli"');
    expect(JSON.parse((await admin(['portals', '--account', 'acc-cli', '--json'])).stdout).map((l: { login: string }) => l.login)).not.toContain('cli-unknown');
  });

  it('refuses a login another account has connected (exit 1)', async () => {
    await add('cli-taken', 'pw');
    const other = await admin(['add-portal', '--account', 'acc-other', '--portal', '99acres', '--login', 'cli-taken', '--project', 'PRJ-1', '--campaign', 'CMP-1'], { env: { PORTAL_CREDENTIAL: 'x' } });
    expect(other).toEqual({ code: 1, stdout: '', stderr: 'admin add-portal: Portal login cli-taken is connected to another account\n' });
  });

  it('connecting again moves the login and keeps its watermark', async () => {
    const fake = portal.login('cli-move', 'pw');
    await add('cli-move', 'pw');
    fake.add({ id: 'MV-1', receivedOn: istText(new Date(Date.now() - 60_000)), name: 'Before', phone: uniqueMobile() });
    const pulled = JSON.parse((await admin(['pull-portal', '--account', 'acc-cli', '--portal', '99acres', '--login', 'cli-move', '--json'])).stdout);
    await admin(['add-portal', '--account', 'acc-cli', '--portal', '99acres', '--login', 'cli-move', '--project', 'PRJ-2', '--campaign', 'CMP-2']);
    const [listed] = JSON.parse((await admin(['portals', '--account', 'acc-cli', '--json'])).stdout).filter((l: { login: string }) => l.login === 'cli-move');
    expect(listed).toMatchObject({ project_id: 'PRJ-2', campaign_id: 'CMP-2', pulled_through: pulled.pulled_through, enquiries_stored: 1 });
  });
});

describe('admin pull-portal and remove-portal', () => {
  it('pull-portal pulls now and prints stored, recorded, already and pulled_through', async () => {
    const fake = portal.login('cli-pull', 'pw');
    await add('cli-pull', 'pw');
    fake.add({ id: 'P-1', receivedOn: istText(new Date(Date.now() - 60_000)), name: 'Pulled', phone: uniqueMobile() });

    const { code, stdout } = await admin(['pull-portal', '--account', 'acc-cli', '--portal', '99acres', '--login', 'cli-pull', '--json']);

    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ stored: 1, recorded: 0, already: 0, pulled_through: expect.any(String) });
    expect((await service.leadsOf('acc-cli')).map((lead) => lead.name)).toContain('Pulled');
  });

  it('rejections names a pulled enquiry’s record by its portal, login and enquiry id, as the portal shows it', async () => {
    const fake = portal.login('cli-records', 'pw');
    await add('cli-records', 'pw');
    fake.add({ id: 'Q-ABROAD-1', receivedOn: istText(new Date(Date.now() - 60_000)), name: 'Abroad', phone: '+44-7700900123' });
    expect((await admin(['pull-portal', '--account', 'acc-cli', '--portal', '99acres', '--login', 'cli-records'])).code).toBe(0);

    const { code, stdout } = await admin(['rejections', '--account', 'acc-cli', '--reason', 'validation']);

    expect(code).toBe(0);
    expect(stdout).toMatch(/99acres cli-records enquiry Q-ABROAD-1\s+validation/);
  });

  it('remove-portal disconnects the login: pull-portal then fails (exit 1), and the account’s other logins are untouched', async () => {
    await add('cli-gone', 'pw');
    expect((await admin(['remove-portal', '--account', 'acc-other', '--portal', '99acres', '--login', 'cli-gone'])).code).toBe(1);
    expect((await admin(['remove-portal', '--account', 'acc-cli', '--portal', '99acres', '--login', 'cli-gone'])).code).toBe(0);
    const pull = await admin(['pull-portal', '--account', 'acc-cli', '--portal', '99acres', '--login', 'cli-gone']);
    expect(pull).toEqual({ code: 1, stdout: '', stderr: 'admin pull-portal: Portal login cli-gone of 99acres is not connected\n' });
  });
});
