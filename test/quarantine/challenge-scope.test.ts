/**
 * CONTRACT.md section 14: a challenge's verdict also checks what the provider says the token was made
 * for. The `hostname` in the answer (when the provider answers one) must be the host of one of the
 * key's origins, and a reCAPTCHA v3 `action`, when the key names one (`create-key --captcha-action`,
 * the admin API's `captcha.action`), must match. Otherwise: 403 and a captcha_failed quarantine.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { adminApi } from '../support/admin-handler.ts';
import { challengesAgainst, fakeSiteverify, type FakeSiteverify } from '../support/fake-siteverify.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

const SECRET = 'scope-captcha-secret';
const SHOP = 'https://shop.example';
const ACCOUNT = 'acc-scope';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

let provider: FakeSiteverify;
let service: TestService;
let admin: ReturnType<typeof adminApi>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  provider = await fakeSiteverify(SECRET);
  service = await testService({ configCacheTtlSeconds: 0, challenges: challengesAgainst(provider) });
  admin = adminApi(service);
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
  await service.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
});

afterAll(async () => {
  await provider.close();
});

const submit = (key: string, token: string, origin = SHOP) =>
  service.call('website', { apiKey: key, body: validBody('website', project, { captcha_token: token }), headers: { origin } });
const newestRecord = async () => (await service.repository.rejections.page(ACCOUNT, { limit: 1 })).items[0];

const cli = async (argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, {
    env: { ...env, CAPTCHA_SECRET: SECRET },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: async () => '',
  });
  return { code, stdout, stderr };
};

describe('the hostname the provider answers', () => {
  it('fails the challenge when the token was solved on another site: 403 and a captcha_failed quarantine', async () => {
    const { key } = await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP], captcha: { provider: 'turnstile', secret: SECRET } });
    const answer = await submit(key, 'host:evil.example');
    expect(answer).toMatchObject({ status: 403, body: { message: 'Captcha verification failed' } });
    expect(await newestRecord()).toMatchObject({ reason: 'captcha_failed', requestId: answer.headers['x-request-id'] });
  });

  it('passes for the host of any of the key’s origins, whatever their scheme or port, in any case', async () => {
    const { key } = await service.issueScopedKey({
      accountId: ACCOUNT,
      origins: [SHOP, 'http://localhost:8080', 'https://www.skyline.example:8443'],
      captcha: { provider: 'hcaptcha', secret: SECRET },
    });
    for (const host of ['shop.example', 'localhost', 'WWW.Skyline.Example']) expect((await submit(key, `host:${host}`)).status).toBe(200);
  });

  it('is not needed: an answer without a hostname is judged on its success', async () => {
    const { key } = await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP], captcha: { provider: 'recaptcha', secret: SECRET } });
    expect((await submit(key, 'high-score')).status).toBe(200);
  });
});

describe('a reCAPTCHA v3 key that names an action', () => {
  it('passes a token made for that action, and fails one made for another (or for none)', async () => {
    const { key } = await service.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP], captcha: { provider: 'recaptcha', secret: SECRET, action: 'lead_form' } });
    expect((await submit(key, 'v3:lead_form')).status).toBe(200);
    expect(await submit(key, 'v3:login')).toMatchObject({ status: 403, body: { message: 'Captcha verification failed' } });
    expect((await submit(key, 'pass')).status).toBe(403);
  });

  it('is made by create-key --captcha-action, listed with the key, and kept by a rotation', async () => {
    const made = await cli(['create-key', '--account', ACCOUNT, '--origins', SHOP, '--captcha', 'recaptcha', '--captcha-action', 'lead_form', '--json']);
    expect(made.code).toBe(0);
    const issued = JSON.parse(made.stdout);
    expect(issued).toMatchObject({ captcha: 'recaptcha', captcha_action: 'lead_form' });
    expect((await submit(issued.key, 'v3:signup')).status).toBe(403);
    expect((await submit(issued.key, 'v3:lead_form')).status).toBe(200);

    const rotated = await cli(['rotate-key', '--id', issued.key_id, '--json']);
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout)).toMatchObject({ captcha: 'recaptcha', captcha_action: 'lead_form' });
    const listed = await cli(['list-keys', '--account', ACCOUNT, '--json']);
    expect(JSON.parse(listed.stdout).find((key: { key_id: string }) => key.key_id === issued.key_id)).toMatchObject({ captcha_action: 'lead_form' });
    const table = await cli(['list-keys', '--account', ACCOUNT]);
    expect(table.stdout).toContain('recaptcha (action lead_form)');
  });

  it.each([
    ['with another provider', ['--captcha', 'turnstile', '--captcha-action', 'lead_form'], /reCAPTCHA/],
    ['without --captcha', ['--captcha-action', 'lead_form'], /--captcha recaptcha/],
    ['outside reCAPTCHA’s alphabet', ['--captcha', 'recaptcha', '--captcha-action', 'lead form!'], /letters, digits, slashes or underscores/],
  ])('is refused %s: exit 2, the problem named', async (_, options, problem) => {
    const refused = await cli(['create-key', '--account', ACCOUNT, '--origins', SHOP, ...options]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(problem);
  });

  it('is made by the admin API’s captcha.action and listed there; refused 400 for another provider', async () => {
    const created = await admin('POST', `/admin/v1/accounts/${ACCOUNT}/keys`, { origins: [SHOP], captcha: { provider: 'recaptcha', secret: SECRET, action: 'lead_form' } });
    expect(created).toMatchObject({ status: 201, body: { captcha: 'recaptcha', captcha_action: 'lead_form' } });
    const listed = await admin('GET', `/admin/v1/accounts/${ACCOUNT}/keys`);
    expect(listed.body.find((key: { key_id: string }) => key.key_id === created.body.key_id)).toMatchObject({ captcha_action: 'lead_form' });
    const refused = await admin('POST', `/admin/v1/accounts/${ACCOUNT}/keys`, { origins: [SHOP], captcha: { provider: 'hcaptcha', secret: SECRET, action: 'lead_form' } });
    expect(refused.status).toBe(400);
  });
});
