/**
 * docs/reference.md, "Signing an admin request": the example is run as the document writes it (its code
 * block read from the file, so the two cannot drift) against `npm start`, routes with a query included.
 * A request signed the way the example once did (the query left in the path) is refused, and `npm start`
 * says why in one line, without the query's mobile number.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignatureV4 } from '@smithy/signature-v4';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { DEFAULT_ADMIN_CREDENTIALS, NodeSha256 } from '../../scripts/local/admin-auth.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { bannerOf, killGroup, spawnNpmStart, waitFor, type StartedService } from '../support/processes.ts';

/** The first `ts` code block under the reference's "Signing an admin request" heading. */
const signingExample = (): string => {
  const reference = readFileSync(path.join(projectRoot, 'docs', 'reference.md'), 'utf8');
  const section = reference.slice(reference.indexOf('### Signing an admin request'));
  const block = /```ts\n([\s\S]*?)\n```/.exec(section);
  if (!block) throw new Error('no ts code block under "### Signing an admin request" in docs/reference.md');
  return block[1]!;
};

/** Prepended to the example: each request it sends, and the status it got, one line each (imports are hoisted above it). */
const fetchRecorder = `
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const response = await realFetch(input, init);
  const url = new URL(String(input));
  process.stdout.write('SENT ' + JSON.stringify({ method: init?.method ?? 'GET', target: url.pathname + url.search, status: response.status }) + '\\n');
  return response;
};
`;

/** A child's environment without the run's AWS and table settings. */
const cleanEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'AWS_REGION', 'AWS_PROFILE', 'AWS_SESSION_TOKEN', 'LEAD_INTAKE_SEED']) delete env[name];
  return env;
};

/** Runs TypeScript source as a module from the project's root (its node_modules), in the Node running the tests. */
const runTypeScript = (source: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, ['--input-type=module-typescript', '-'], { cwd: projectRoot, env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(source);
  });

describe("The reference's admin signing example, against npm start", () => {
  let service: StartedService;
  let baseUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // The demo seed (acc-demo), on the run's DynamoDB Local in tables of its own.
    const tables = `signing${randomUUID().slice(0, 8)}_`;
    service = spawnNpmStart(projectRoot, {
      ...cleanEnv({ PORT: String(port) }),
      DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT!,
      CONFIG_TABLE_NAME: `${tables}Config`,
      LEADS_TABLE_NAME: `${tables}Leads`,
    });
    await bannerOf(service, 90_000);
  }, 120_000);

  afterAll(() => killGroup(service?.child.pid));

  it('runs as written, and every request it signs answers 200, those with a query included', async () => {
    const run = await runTypeScript(`${fetchRecorder}\n${signingExample()}`, {
      ...cleanEnv({}),
      LEAD_INTAKE_ADMIN_URL: baseUrl,
      AWS_ACCESS_KEY_ID: DEFAULT_ADMIN_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: DEFAULT_ADMIN_CREDENTIALS.secretAccessKey,
    });
    const sent = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('SENT '))
      .map((line) => JSON.parse(line.slice('SENT '.length)) as { method: string; target: string; status: number });
    expect(sent.filter((request) => request.status !== 200)).toEqual([]);
    expect(sent.map((request) => request.target)).toEqual(
      expect.arrayContaining(['/admin/v1/accounts/acc-demo/rejections?limit=2&reason=honeypot', expect.stringMatching(/^\/admin\/v1\/accounts\/acc-demo\/people\?mobile_number=\d{10}$/)]),
    );
    expect([run.stderr, run.code]).toEqual(['', 0]);
  }, 60_000);

  describe('a query signed as part of the path, as the example once did', () => {
    const mobile = '9876501234';

    const signedTheOldWay = async (pathAndQuery: string) => {
      const url = new URL(pathAndQuery, baseUrl);
      const signed = await new SignatureV4({ credentials: DEFAULT_ADMIN_CREDENTIALS, region: 'ap-south-1', service: 'execute-api', sha256: NodeSha256 }).sign({
        method: 'GET',
        protocol: url.protocol,
        hostname: url.hostname,
        port: Number(url.port),
        path: pathAndQuery,
        query: {},
        headers: { host: url.host },
      });
      return (await fetch(url, { headers: signed.headers })).status;
    };

    it('is refused, and npm start logs one line saying why, with the mobile number redacted', async () => {
      expect(await signedTheOldWay(`/admin/v1/accounts/acc-demo/people?mobile_number=${mobile}`)).toBe(403);
      const expected =
        'admin auth: 403 GET /admin/v1/accounts/acc-demo/people?mobile_number=<redacted>: signature mismatch: the query was signed as part of the path; ' +
        "sign the path without it and pass the query apart (the signer's `query` object) " +
        '(the service signed path /admin/v1/accounts/acc-demo/people, query "mobile_number=<redacted>", headers host;x-amz-content-sha256;x-amz-date)';
      await waitFor(() => service.output().includes(expected), 'the refusal line', 10_000);
      expect(service.output().split('\n').filter((line) => line.startsWith('admin auth: ') && line.includes('/people'))).toEqual([expected]);
      expect(service.output() + service.errors()).not.toContain(mobile);
    });

    it("logs the page size and reason, which say nothing of a person", async () => {
      expect(await signedTheOldWay('/admin/v1/accounts/acc-demo/rejections?limit=2&reason=honeypot')).toBe(403);
      await waitFor(
        () => service.output().includes('admin auth: 403 GET /admin/v1/accounts/acc-demo/rejections?limit=2&reason=honeypot: signature mismatch: the query was signed as part of the path'),
        'the refusal line',
        10_000,
      );
    });
  });
});
