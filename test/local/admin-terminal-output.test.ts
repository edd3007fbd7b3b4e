/**
 * The admin CLI's output is safe to print (issue 37): what it lists are stored strings any sender
 * typed (a call id, a lead's name), yet no control character or bidi mark reaches the operator's
 * terminal raw. Tables show them escaped, on one line each; `--json` escapes them too, and parses back
 * to exactly what is stored. Run against this file's own tables on the test run's DynamoDB Local.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { callTestService, projectNumber, type CallTestService } from '../support/call-service.ts';
import { uniqueMobile, validBody } from '../support/service.ts';

const ACCOUNT = 'acc-terminal';
const SHOP = 'https://shop.example';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

/**
 * Clears the screen, retitles the window and rings (ESC sequences, BEL), colours with a lone CSI
 * (0x9b), reverses what follows (U+202E, an isolate U+2066..U+2069, the marks U+061C and U+200F), breaks
 * lines (U+2028, U+2029), and rubs out and overwrites (DEL, backspace, CR).
 */
const HOSTILE = 'A\u001b[2J\u001b]0;pwned\u0007 \u009b31m \u202eevil\u202c \u2066x\u2069 \u061c\u200f\u2028\u2029 \u007f\b\rZ';
/** What a terminal would act on: C0 controls but tab and newline, DEL, C1, the bidi marks and the line separators. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

let calls: CallTestService;
let env: NodeJS.ProcessEnv;
const callId = `c-${HOSTILE}`;
const mobile = uniqueMobile();
let quarantineId: string;

const admin = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

/** Runs a command, expects it to succeed, and that nothing it wrote holds a raw control or bidi character. */
const printed = async (...argv: string[]) => {
  const answer = await admin(...argv);
  expect(answer.code).toBe(0);
  expect(answer.stdout).not.toMatch(RAW);
  expect(answer.stderr).not.toMatch(RAW);
  return answer.stdout;
};

beforeAll(async () => {
  calls = await callTestService({ configCacheTtlSeconds: 0 });
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: calls.tables.config, LEADS_TABLE_NAME: calls.tables.leads };
  await calls.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
  // A call to a number the account never connected: a call_number_not_connected record, named by its call id.
  const callsKey = await calls.callsKey(ACCOUNT);
  expect((await calls.deliver({ queryKey: callsKey, json: { call_id: callId, caller_number: uniqueMobile(), called_number: projectNumber() } })).status).toBe(200);
  // A lead whose name is the same text: names are any text of up to 200 characters.
  const key = await calls.issueKey(ACCOUNT);
  expect((await calls.call('website', { apiKey: key, body: validBody('website', project, { name: HOSTILE, mobile_number: mobile }) })).status).toBe(200);
  // A honeypot catch with that name, to release.
  const browserKey = (await calls.issueScopedKey({ accountId: ACCOUNT, origins: [SHOP] })).key;
  const trapped = validBody('website', project, { name: HOSTILE, company_website: 'https://autofill.example' });
  expect((await calls.call('website', { apiKey: browserKey, body: trapped, headers: { origin: SHOP } })).status).toBe(200);
  quarantineId = (await calls.rejectionsOf(ACCOUNT)).find((r) => r.reason === 'honeypot')!.id;
});

describe('admin rejections', () => {
  it('shows a call id’s control and bidi characters escaped, each record on its own line', async () => {
    const stdout = await printed('rejections', '--account', ACCOUNT, '--reason', 'call_number_not_connected');
    const lines = stdout.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('c-A\\u001b[2J\\u001b]0;pwned\\u0007 \\u009b31m \\u202eevil\\u202c \\u2066x\\u2069 \\u061c\\u200f\\u2028\\u2029 \\u007f\\u0008\\u000dZ');
    expect(lines[2]).toBe('1 rejected submission(s)');
  });

  it('prints --json that parses back to the stored call id, and to every stored record exactly', async () => {
    const stdout = await printed('rejections', '--account', ACCOUNT, '--json');
    const listed = JSON.parse(stdout) as Record<string, unknown>[];
    expect(listed.find((r) => r.reason === 'call_number_not_connected')?.call_id).toBe(callId);
    expect(listed.find((r) => r.reason === 'honeypot')).toMatchObject({ submission: { name: HOSTILE } });
    const stored = JSON.parse(JSON.stringify(await calls.rejectionsOf(ACCOUNT))) as Record<string, unknown>[];
    expect(listed).toEqual(expect.arrayContaining(stored));
    expect(listed).toHaveLength(stored.length);
  });
});

describe('admin leads', () => {
  it('shows a name’s control and bidi characters escaped, and its columns in line', async () => {
    const stdout = await printed('leads', '--account', ACCOUNT);
    const [header, row] = stdout.split('\n');
    expect(row).toContain('A\\u001b[2J\\u001b]0;pwned\\u0007 \\u009b31m \\u202eevil');
    expect(row!.indexOf(mobile)).toBe(header!.indexOf('mobile'));
  });

  it('prints --json that parses back to the stored leads exactly', async () => {
    const listed = JSON.parse(await printed('leads', '--account', ACCOUNT, '--json'));
    expect(listed).toEqual(JSON.parse(JSON.stringify(await calls.leadsOf(ACCOUNT))));
    expect(listed.find((lead: { mobile_number: string }) => lead.mobile_number === mobile).name).toBe(HOSTILE);
  });
});

describe('the other outputs that print stored strings', () => {
  it('admin person prints the lead and record tables escaped, and --json exact', async () => {
    await printed('person', '--account', ACCOUNT, '--mobile', mobile);
    expect(JSON.parse(await printed('person', '--account', ACCOUNT, '--mobile', mobile, '--json')).leads[0].name).toBe(HOSTILE);
  });

  it('admin release --json prints the released lead escaped, and exact', async () => {
    const lead = JSON.parse(await printed('release', '--account', ACCOUNT, '--rejection-id', quarantineId, '--json'));
    expect(lead.name).toBe(HOSTILE);
  });
});
