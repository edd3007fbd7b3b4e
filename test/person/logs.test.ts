/**
 * CONTRACT.md section 14: logs carry no part of a person's mobile number or e-mail (no last digits, no
 * domain), since an erasure cannot reach them. Every line a request writes is checked whole.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';
import { validBody } from '../support/service.ts';

let google: GoogleTestService;
let apiKey: string;
let formKey: string;
const FORM = '44000000001';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const EMAIL = 'asha.verma@verma-family.example';

beforeAll(async () => {
  google = await googleTestService();
  await google.seedAccount({ id: 'acc-logs', projects: { 'PRJ-1': ['CMP-1'] } });
  apiKey = await google.issueKey('acc-logs');
  formKey = await google.connectForm('acc-logs', FORM);
});

/** The lines written since `from`, without the ids (random text that could hold any four digits). */
const linesSince = (from: number) =>
  google.logs.slice(from).map(({ requestId: _r, correlation_id: _c, leadId: _l, ...line }) => JSON.stringify(line));

const expectNothingOf = (lines: string[], mobile: string) => {
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    expect(line).not.toContain(mobile.slice(-4));
    expect(line).not.toContain('verma-family');
    expect(line).not.toContain('asha.verma');
  }
};

describe('the log line of a lead request', () => {
  it.each([
    ['a stored lead', project, 200],
    ['a refused lead (422)', { projectID: 'PRJ-404', campaignID: 'CMP-1' }, 422],
  ])('of %s holds no part of the mobile or the e-mail', async (_case, target, status) => {
    const mobile = '9812347531';
    const from = google.logs.length;
    const answer = await google.call('portala', { apiKey, body: validBody('portala', target, { mobile_number: mobile, email: EMAIL }) });
    expect(answer.status).toBe(status);
    expectNothingOf(linesSince(from), mobile);
  });
});

describe('the log line of a Google delivery', () => {
  it('holds no part of the mobile or the e-mail', async () => {
    const mobile = '9812348642';
    const from = google.logs.length;
    const columns = standardColumns(mobile, [{ column_id: 'EMAIL', column_name: 'Email', string_value: EMAIL }]);
    expect((await google.deliver({ formId: FORM, key: formKey, columns })).status).toBe(200);
    expectNothingOf(linesSince(from), mobile);
  });
});
