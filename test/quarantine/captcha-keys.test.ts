/**
 * CONTRACT.md section 11, "Challenges for browser keys", as the key's administrators see it: created
 * with `create-key --captcha` (the secret from CAPTCHA_SECRET or standard input) or the admin API's
 * `captcha`, listed by provider only, kept by a rotation, and refused (exit 2 / 400) without origins,
 * with an unknown provider or without a secret. The secret is stored sealed and never shown.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runAdmin } from '../../scripts/admin.ts';
import { hashApiKey } from '../../shared/domain/api-keys.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { adminApi, adminCall } from '../support/admin-handler.ts';
import { challengesAgainst, fakeSiteverify, type FakeSiteverify } from '../support/fake-siteverify.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

const SECRET = 'captcha-secret-0x4AAAA-never-shown';
const SHOP = 'https://shop.example';
const ACCOUNT = 'acc-ck';
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

const cli = async (argv: string[], { secretEnv, stdin }: { secretEnv?: string; stdin?: string } = {}) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, {
    env: { ...env, ...(secretEnv !== undefined && { CAPTCHA_SECRET: secretEnv }) },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: async () => stdin ?? '',
  });
  return { code, stdout, stderr };
};

/** A lead through the key, with a token the fake provider passes or fails (only with the right secret). */
const submit = (key: string, token: string) => service.call('website', { apiKey: key, body: validBody('website', project, { captcha_token: token }), headers: { origin: SHOP } });

const storedKeyItem = async (key: string) =>
  (await createDocumentClient({ client: service.client }).send(new GetCommand({ TableName: service.tables.config, Key: { pk: `APIKEY#${hashApiKey(key)}`, sk: 'APIKEY' } }))).Item!;

describe('create-key --captcha', () => {
  it('reads the secret from CAPTCHA_SECRET, stores it sealed, and the key then requires the challenge', async () => {
    const made = await cli(['create-key', '--account', ACCOUNT, '--origins', SHOP, '--captcha', 'turnstile', '--json'], { secretEnv: SECRET });
    expect(made.code).toBe(0);
    const issued = JSON.parse(made.stdout);
    expect(issued).toMatchObject({ key_id: expect.stringMatching(/^key_/), origins: [SHOP], endpoints: ['website'], captcha: 'turnstile' });
    expect(made.stdout + made.stderr).not.toContain(SECRET);
    const item = await storedKeyItem(issued.key);
    expect(item).toMatchObject({ captcha_provider: 'turnstile', captcha_secret: expect.stringMatching(/^local-aes-gcm:/) });
    expect(JSON.stringify(item)).not.toContain(SECRET);
    expect((await submit(issued.key, 'pass')).status).toBe(200);
    expect((await submit(issued.key, 'fail')).status).toBe(403);
  });

  it('reads the secret from standard input when CAPTCHA_SECRET is not set', async () => {
    const made = await cli(['create-key', '--account', ACCOUNT, '--origins', SHOP, '--captcha', 'recaptcha'], { stdin: `${SECRET}\n` });
    expect(made.code).toBe(0);
    const key = made.stdout.trim();
    expect((await submit(key, 'high-score')).status).toBe(200);
    expect((await submit(key, 'low-score')).status).toBe(403);
  });

  it.each([
    ['a key without origins', ['--captcha', 'turnstile'], SECRET, /browser key/],
    ['an unknown provider', ['--origins', SHOP, '--captcha', 'friendlycaptcha'], SECRET, /unknown challenge provider/],
    ['no secret', ['--origins', SHOP, '--captcha', 'hcaptcha'], undefined, /secret is required/],
  ])('exits 2 for %s, and stores no key', async (_, options, secretEnv, message) => {
    const before = (await service.repository.keys.listAccountKeys(ACCOUNT)).length;
    const refused = await cli(['create-key', '--account', ACCOUNT, ...options], secretEnv === undefined ? {} : { secretEnv });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(message);
    expect(refused.stderr).not.toContain(SECRET);
    expect((await service.repository.keys.listAccountKeys(ACCOUNT)).length).toBe(before);
  });
});

describe('list-keys and rotate-key', () => {
  it('lists the provider (or null) and never the secret; a rotation keeps the challenge and its secret', async () => {
    const made = JSON.parse((await cli(['create-key', '--account', ACCOUNT, '--origins', SHOP, '--captcha', 'hcaptcha', '--json'], { secretEnv: SECRET })).stdout);
    const plain = JSON.parse((await cli(['create-key', '--account', ACCOUNT, '--origins', SHOP, '--json'])).stdout);
    expect(plain.captcha).toBeNull();
    const rotated = await cli(['rotate-key', '--id', made.key_id, '--grace', '0', '--json']);
    expect(rotated.code).toBe(0);
    const successor = JSON.parse(rotated.stdout);
    expect(successor.captcha).toBe('hcaptcha');
    expect((await submit(successor.key, 'pass')).status).toBe(200);
    expect((await submit(successor.key, 'fail')).status).toBe(403);

    const listed = await cli(['list-keys', '--account', ACCOUNT, '--json']);
    const byId = new Map(JSON.parse(listed.stdout).map((key: { key_id: string; captcha: string | null }) => [key.key_id, key.captcha]));
    expect(byId.get(made.key_id)).toBe('hcaptcha');
    expect(byId.get(successor.key_id)).toBe('hcaptcha');
    expect(byId.get(plain.key_id)).toBeNull();
    const table = await cli(['list-keys', '--account', ACCOUNT]);
    expect(table.stdout).toMatch(/captcha/);
    expect(table.stdout).toMatch(/hcaptcha/);
    for (const output of [listed.stdout, table.stdout, rotated.stdout, rotated.stderr]) expect(output).not.toContain(SECRET);
  });
});

describe('the admin API', () => {
  const keysPath = `/admin/v1/accounts/${ACCOUNT}/keys`;

  it('creates a key with "captcha": {"provider", "secret"}, lists its provider, and keeps it through a rotation', async () => {
    const created = await admin('POST', keysPath, { origins: [SHOP], captcha: { provider: 'turnstile', secret: SECRET } });
    expect(created).toMatchObject({ status: 201, body: { captcha: 'turnstile' } });
    expect(JSON.stringify(created.body)).not.toContain(SECRET);
    expect((await submit(created.body.key, 'pass')).status).toBe(200);
    const rotated = await admin('POST', `${keysPath}/${created.body.key_id}/rotate`, { graceSeconds: 0 });
    expect(rotated).toMatchObject({ status: 201, body: { captcha: 'turnstile' } });
    expect((await submit(rotated.body.key, 'fail')).status).toBe(403);
    const listed = await admin('GET', keysPath);
    expect(listed.status).toBe(200);
    expect(listed.body.find((key: { key_id: string }) => key.key_id === rotated.body.key_id)).toMatchObject({ captcha: 'turnstile' });
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
  });

  it('never writes the secret to the admin function’s log lines, created or refused', async () => {
    const lines: Record<string, unknown>[] = [];
    const logged = adminHandler(adminRuntime(service.repository, (line) => void lines.push({ ...line })));
    expect((await adminCall(logged, 'POST', keysPath, { origins: [SHOP], captcha: { provider: 'hcaptcha', secret: SECRET } })).status).toBe(201);
    expect((await adminCall(logged, 'POST', keysPath, { captcha: { provider: 'hcaptcha', secret: SECRET } })).status).toBe(400);
    expect((await adminCall(logged, 'POST', keysPath, { origins: [SHOP], captcha: { provider: 'nope', secret: SECRET } })).status).toBe(400);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it.each([
    ['a key without origins', { captcha: { provider: 'turnstile', secret: SECRET } }, /browser key/],
    ['an unknown provider', { origins: [SHOP], captcha: { provider: 'arkose', secret: SECRET } }, /unknown challenge provider/],
    ['no secret', { origins: [SHOP], captcha: { provider: 'turnstile' } }, /secret is required/],
    ['an empty secret', { origins: [SHOP], captcha: { provider: 'turnstile', secret: ' ' } }, /secret is required/],
    ['a captcha that is not an object', { origins: [SHOP], captcha: 'turnstile' }, /must be an object/],
  ])('answers 400 for %s, names captcha, and stores no key', async (_, body, message) => {
    const before = (await service.repository.keys.listAccountKeys(ACCOUNT)).length;
    const refused = await admin('POST', keysPath, body);
    expect(refused).toMatchObject({ status: 400, body: { status: false, errors: { captcha: [expect.stringMatching(message)] } } });
    expect(JSON.stringify(refused.body)).not.toContain(SECRET);
    expect((await service.repository.keys.listAccountKeys(ACCOUNT)).length).toBe(before);
  });
});
