/**
 * The tools a person runs in a terminal (`npm run admin`, `npm start`) name the real cause of a
 * database failure, where the database is and the cause's code, not the 503 sentence lead senders
 * get; and an AWS set-up without a region is named as such, not looked up as a made-up host.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { describeDatabaseFailure, projectRoot } from '../../scripts/local/environment.ts';
import { ServiceUnavailableError } from '../../shared/domain/errors.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-db-failures-'));

/** A real process of the project, with only the environment given (no AWS settings of this machine). */
const run = (args: string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; lines: string[] }>((resolve) => {
    const child = spawn('npm', args, { cwd: projectRoot, env: { PATH: process.env.PATH, HOME: dir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, lines: stderr.split('\n').filter((line) => line.trim() && !/^npm (warn|error|notice)/.test(line)) }));
  });

describe('the admin CLI on a database it cannot reach', () => {
  it('names the endpoint and the cause, not the 503 sentence', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    let stderr = '';
    const code = await runAdmin(['leads', '--account', 'acc-demo'], { env: { DYNAMODB_ENDPOINT: endpoint }, stdout: () => undefined, stderr: (text) => void (stderr += text) });
    expect(stderr).toBe(`admin leads: could not reach DynamoDB at ${endpoint} (ECONNREFUSED)\n`);
    expect(code).toBe(1);
  });
});

describe('the admin CLI on AWS', () => {
  const config = path.join(dir, 'aws-config');
  writeFileSync(
    config,
    [
      '[profile no-region]',
      'aws_access_key_id = AKIDEXAMPLENOREGION',
      'aws_secret_access_key = not-a-secret',
      '[profile nowhere]',
      'region = xx-nowhere-1',
      'aws_access_key_id = AKIDEXAMPLENOWHERE',
      'aws_secret_access_key = not-a-secret',
      '',
    ].join('\n'),
  );
  const aws = (profile: string) => ({
    AWS_CONFIG_FILE: config,
    AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'no-credentials'),
    AWS_PROFILE: profile,
    AWS_EC2_METADATA_DISABLED: 'true',
    CONFIG_TABLE_NAME: 'LeadIntake-dev-Config',
    LEADS_TABLE_NAME: 'LeadIntake-dev-Leads',
  });

  it('says that a profile without a region has none, instead of looking up a made-up host', async () => {
    const { code, stdout, lines } = await run(['run', '-s', 'admin', '--', 'leads', '--account', 'acc-demo'], aws('no-region'));
    expect(lines).toEqual([
      `admin leads: no AWS region (the AWS profile "no-region" names none): set AWS_REGION to the deployed stack's region, or a region in your AWS profile; or DYNAMODB_ENDPOINT for a local DynamoDB`,
    ]);
    expect(stdout).toBe('');
    expect(code).toBe(1);
  });

  it("uses the profile's region, and names that region's endpoint when it cannot be reached", async () => {
    const { code, lines } = await run(['run', '-s', 'admin', '--', 'leads', '--account', 'acc-demo'], aws('nowhere'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^admin leads: could not reach DynamoDB at https:\/\/dynamodb\.xx-nowhere-1\.amazonaws\.com \((ENOTFOUND|EAI_AGAIN)\)$/);
    expect(code).toBe(1);
  });
});

describe('npm start on a DYNAMODB_ENDPOINT it cannot reach', () => {
  it('names the endpoint and the cause in one line and exits 1', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const { code, lines } = await run(['start'], {
      DYNAMODB_ENDPOINT: endpoint,
      PORT: String(await freePort()),
      LEAD_INTAKE_DATA_DIR: ':memory:',
    });
    expect(lines).toEqual([`npm start: could not reach DynamoDB at ${endpoint} (ECONNREFUSED)`]);
    expect(code).toBe(1);
  });
});

describe('the cause of a database failure, in words', () => {
  const endpoint = 'http://127.0.0.1:8000';
  const sdkError = (name: string, status: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
  const unavailable = (cause: Error) => new ServiceUnavailableError(1, { cause });

  it.each([
    [unavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' })), 'could not reach DynamoDB at http://127.0.0.1:8000 (ECONNREFUSED)'],
    [unavailable(sdkError('TimeoutError', 0)), 'DynamoDB at http://127.0.0.1:8000 did not answer in time (TimeoutError)'],
    [unavailable(sdkError('ThrottlingException', 400)), 'DynamoDB at http://127.0.0.1:8000 is throttling requests (ThrottlingException)'],
    [unavailable(sdkError('InternalServerError', 500)), 'DynamoDB at http://127.0.0.1:8000 failed (InternalServerError, HTTP 500)'],
  ])('reads the cause under the 503 (%#)', (error, words) => {
    expect(describeDatabaseFailure(error, endpoint)).toBe(words);
  });

  it('is not claimed for an error that is not a database failure', () => {
    expect(describeDatabaseFailure(sdkError('ValidationException', 400), endpoint)).toBeUndefined();
  });
});
