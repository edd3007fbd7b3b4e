/**
 * Portal enquiries through `npm start` as a tester meets them (CONTRACT.md section 17, "Locally"): with
 * no portal URL set, each portal's stand-in serves sample enquiries on its wire; a login connected to
 * the demo seed's account with `admin add-portal` is pulled every PORTAL_PULL_SECONDS and its enquiries
 * become leads of its portal in `admin leads`; `pull-portal` pulls at once; nothing printed holds the credential.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { bannerOf, killGroup, runsDatabase, spawnNpmStart, waitFor, type StartedService } from '../support/processes.ts';

/** The run's DynamoDB Local, tables of this file's own: npm start and the admin CLI share them. */
const database = runsDatabase();

let service: StartedService;
let banner: string;
const CREDENTIAL = 'stand-in-credential-e2e';

const admin = (argv: string[], extra: NodeJS.ProcessEnv = {}) => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...database, ...extra };
  return execFileSync('npm', ['run', '--silent', 'admin', '--', ...argv], { cwd: projectRoot, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
};

const leadsOf = (source: string) => (JSON.parse(admin(['leads', '--account', 'acc-demo', '--json'])) as Record<string, unknown>[]).filter((lead) => lead.source === source);

beforeAll(async () => {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), PORTAL_PULL_SECONDS: '2' };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS', 'LEAD_INTAKE_SEED', 'PORTAL_99ACRES_URL', 'PORTAL_MAGICBRICKS_URL', 'PORTAL_HOUSING_URL']) delete env[name];
  Object.assign(env, database);
  service = spawnNpmStart(projectRoot, env);
  banner = await bannerOf(service);
}, 60_000);

afterAll(() => killGroup(service?.child.pid));

describe('portals through npm start', () => {
  it('says in its banner that each portal is served by its stand-in, and how often logins are pulled', () => {
    expect(banner).toContain('every connected login pulled every 2 s (PORTAL_PULL_SECONDS)');
    for (const [title, variable] of [['99acres', 'PORTAL_99ACRES_URL'], ['MagicBricks', 'PORTAL_MAGICBRICKS_URL'], ['Housing.com', 'PORTAL_HOUSING_URL']] as const) {
      expect(banner).toMatch(new RegExp(`${title.replace('.', '\\.')} +stand-in at http://127\\.0\\.0\\.1:\\d+/ \\(sample enquiries for any login; set ${variable} to pull the portal\\)`));
    }
  });

  it.each([
    ['99acres', 'demo-99acres-user'],
    ['magicbricks', 'demo-mb-login'],
    ['housing', '7001'],
  ])('a %s login connected to the demo account becomes leads of that portal within the pull period', async (portal, login) => {
    admin(['add-portal', '--account', 'acc-demo', '--portal', portal, '--login', login, '--project', 'PRJ-1', '--campaign', 'CMP-1'], { PORTAL_CREDENTIAL: CREDENTIAL });

    await waitFor(() => leadsOf(portal).length > 0, `a ${portal} lead`, 30_000);

    const [lead] = leadsOf(portal);
    expect(lead).toMatchObject({ source: portal, sub_source: null, projectID: 'PRJ-1', campaignID: 'CMP-1', portal_login: login, portal_enquiry_id: expect.any(String) });
    const listed = JSON.parse(admin(['portals', '--account', 'acc-demo', '--json'])) as { login: string; state: string; pulled_through: string | null }[];
    expect(listed.find((entry) => entry.login === login)).toMatchObject({ state: 'ok', pulled_through: expect.any(String) });
  }, 45_000);

  it('pull-portal pulls at once and finds the stand-in’s enquiries stored already', async () => {
    const pull = () => admin(['pull-portal', '--account', 'acc-demo', '--portal', '99acres', '--login', 'demo-99acres-user', '--json'], { PORTAL_99ACRES_URL: banner.match(/99acres +stand-in at (\S+)/)![1]! });
    // npm start's own pull of the login may hold it at that moment: exit 1, "try again when it has ended", as the contract has it.
    let answer: string | undefined;
    await waitFor(() => {
      try {
        answer = pull();
        return true;
      } catch (error) {
        if (!String((error as { stderr?: string }).stderr).includes('is running: try again')) throw error;
        return false;
      }
    }, 'pull-portal between two of npm start’s pulls');
    const summary = JSON.parse(answer!);
    expect(summary).toEqual({ stored: expect.any(Number), recorded: 0, already: expect.any(Number), pulled_through: expect.any(String) });
    expect(summary.already).toBeGreaterThan(0);
  }, 60_000);

  it('never prints the credential', () => {
    expect(service.output()).not.toContain(CREDENTIAL);
    expect(service.errors()).not.toContain(CREDENTIAL);
  });
});
