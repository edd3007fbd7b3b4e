/**
 * Google Ads lead forms through `npm start` as an advertiser's developer tries them (README "Google
 * Ads lead forms"): a child process on the run's DynamoDB Local (tables of its own) with the demo seed, a form
 * connected with the admin CLI, Google's test data found in `admin rejections`, and a delivery that
 * becomes a lead in `admin leads`, once however often it is delivered.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { bannerOf, killGroup, runsDatabase, spawnNpmStart, type StartedService } from '../support/processes.ts';
import { deliveryJson, googleLeadId } from '../support/google-service.ts';
import { untilAnswered } from '../support/service.ts';

/** The run's DynamoDB Local, tables of this file's own: npm start and the admin CLI share them. */
const database = runsDatabase();

let service: StartedService;
let baseUrl: string;
let banner: string;

const admin = (...argv: string[]) => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...database };
  return execFileSync('npm', ['run', '--silent', 'admin', '--', ...argv], { cwd: projectRoot, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
};

const post = async (body: string) => {
  const response = await fetch(`${baseUrl}/api/google-ads-lead-webhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: (await response.json()) as { status: boolean; message: string } };
};

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS', 'LEAD_INTAKE_SEED']) delete env[name];
  Object.assign(env, database);
  service = spawnNpmStart(projectRoot, env);
  banner = await bannerOf(service);
}, 60_000);

afterAll(() => {
  killGroup(service?.child.pid);
});

describe('Google Ads lead forms through npm start', () => {
  it('prints the webhook URL in its banner', () => {
    expect(banner).toContain(`Google Ads webhook:  ${baseUrl}/api/google-ads-lead-webhook`);
  });

  it("connects a form with the CLI; Google's test data is answered 200 and shows in admin rejections", async () => {
    const key = admin('add-google-form', '--account', 'acc-demo', '--form-id', '4611686018427387904', '--project', 'PRJ-1', '--campaign', 'CMP-1').trim();
    expect(key).toMatch(/^gk_/);
    const testLead = googleLeadId();
    const answer = await post(
      deliveryJson({
        leadId: testLead,
        formId: '4611686018427387904',
        key,
        isTest: true,
        columns: [
          { column_name: 'Full Name', string_value: 'FirstName LastName', column_id: 'FULL_NAME' },
          { column_name: 'User Phone', string_value: '+16505550123', column_id: 'PHONE_NUMBER' },
        ],
      }),
    );
    expect(answer).toEqual({ status: 200, requestId: expect.any(String), body: { status: true, message: 'Lead received' } });
    expect(JSON.parse(admin('rejections', '--account', 'acc-demo', '--json'))).toContainEqual(
      expect.objectContaining({ endpoint: 'google_ads', reason: 'google_test_lead', google_lead_id: testLead }),
    );
  });

  it('turns a delivery into one lead in admin leads, however often Google delivers it', async () => {
    const key = admin('rotate-google-form-key', '--form-id', '4611686018427387904').trim();
    const leadId = googleLeadId();
    const body = deliveryJson({
      leadId,
      formId: '4611686018427387904',
      key,
      campaignId: '9007199254740993',
      gclId: 'gclid-e2e',
      columns: [
        { column_name: 'Full Name', string_value: 'Priya Nair', column_id: 'FULL_NAME' },
        { column_name: 'User Phone', string_value: '+91 98100 00077', column_id: 'PHONE_NUMBER' },
        { column_name: 'Budget', string_value: '80 lakh', column_id: 'budget' },
      ],
    });
    // Google retries a 503 (the right answer when a busy machine passes the deadline); the final answers count.
    const answers = await Promise.all([untilAnswered(() => post(body)), untilAnswered(() => post(body)), untilAnswered(() => post(body))]);
    expect(answers.map((answer) => [answer.status, answer.body.message])).toEqual(Array(3).fill([200, 'Lead received']));
    const leads = (JSON.parse(admin('leads', '--account', 'acc-demo', '--json')) as Record<string, unknown>[]).filter((lead) => lead.google_lead_id === leadId);
    expect(leads).toEqual([
      expect.objectContaining({
        name: 'Priya Nair',
        mobile_number: '9810000077',
        source: 'google_ads',
        sub_source: 'lead_form',
        notes: 'Budget: 80 lakh',
        google_form_id: '4611686018427387904',
        google_campaign_id: '9007199254740993',
        gclid: 'gclid-e2e',
      }),
    ]);
  });

  it('answers a wrong key 401 Invalid google_key, and never logs a key', async () => {
    const answer = await post(deliveryJson({ formId: '40000000000', key: 'not-the-key', columns: [] }));
    expect(answer).toMatchObject({ status: 401, body: { status: false, message: 'Invalid google_key' } });
    expect(service.output()).not.toContain('not-the-key');
    expect(service.output()).not.toContain('demo-google-key-please-change');
    expect(service.output()).not.toMatch(/gk_[\w-]{32}/);
  });
});
