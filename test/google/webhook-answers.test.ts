/**
 * The Google Ads lead form webhook (CONTRACT.md section 10) through its handler, against DynamoDB
 * Local: every row of the contract's table, in its order of checks, and what each leaves behind.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { uniqueMobile } from '../support/service.ts';
import { deliveryJson, googleLeadId, googleTestService, standardColumns, type GoogleTestService, rotateGoogleFormKey } from '../support/google-service.ts';

let google: GoogleTestService;
let key: string;
const FORM = '40000000001';

beforeAll(async () => {
  google = await googleTestService();
  await google.seedAccount({ id: 'acc-g', projects: { 'PRJ-1': ['CMP-1'] } });
  key = await google.connectForm('acc-g', FORM);
});

const nothingStored = async () => {
  expect(await google.leadsOf('acc-g')).toHaveLength(0);
  expect(await google.rejectionsOf('acc-g')).toHaveLength(0);
};

describe('refusals before the key: 413, 415, 400 as section 1, nothing stored', () => {
  it('answers 413 Payload too large for a body over 64 KiB', async () => {
    const columns = standardColumns(uniqueMobile(), [{ column_id: 'BIG', column_name: 'Big', string_value: 'x'.repeat(70_000) }]);
    const answer = await google.deliver({ formId: FORM, key, columns });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ status: false, message: 'Payload too large' });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    await nothingStored();
  });

  it('answers 415 for a content type that is not JSON', async () => {
    const answer = await google.deliver({ formId: FORM, key, columns: standardColumns(uniqueMobile()) }, { headers: { 'content-type': 'text/plain' } });
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual({ status: false, message: 'Content-Type must be application/json' });
    await nothingStored();
  });

  it.each([
    ['malformed JSON', '{"lead_id": ', 'Malformed JSON body'],
    ['an empty body', '', 'Malformed JSON body'],
    ['a JSON array', '[1, 2]', 'Request body must be a JSON object'],
  ])('answers 400 for %s', async (_case, body, message) => {
    const answer = await google.deliver(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ status: false, message });
    await nothingStored();
  });
});

describe('the form key: 401 Invalid google_key, answered alike whatever is wrong', () => {
  it.each([
    ['no form_id', { formId: null }],
    ['a form no account has connected', { formId: '40000000999' }],
    ['no google_key', { key: null }],
    ['an empty google_key', { key: '' }],
    ['the key of the form with one character changed', { keyChange: true }],
    ['a form id that is not a whole number', { raw: true }],
  ])('refuses %s: nothing stored', async (_case, change: Record<string, unknown>) => {
    const parts = { formId: FORM, key, columns: standardColumns(uniqueMobile()), ...change };
    if (change.keyChange) parts.key = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    const body = change.raw ? deliveryJson({ ...parts, formId: null }).replace('"api_version"', '"form_id": 4.0e10, "api_version"') : deliveryJson(parts);
    const answer = await google.deliver(body);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ status: false, message: 'Invalid google_key' });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    await nothingStored();
  });

  it("refuses one form's key on another form", async () => {
    await google.seedAccount({ id: 'acc-other', projects: { 'PRJ-1': ['CMP-1'] } });
    const otherKey = await google.connectForm('acc-other', '40000000002');
    const answer = await google.deliver({ formId: FORM, key: otherKey, columns: standardColumns(uniqueMobile()) });
    expect(answer.status).toBe(401);
    await nothingStored();
    expect(await google.leadsOf('acc-other')).toHaveLength(0);
  });

  it('reads nothing but the form for a request that fails the key check', async () => {
    google.roundTrips.reset();
    const answer = await google.deliver({ formId: '40000000998', key: 'a-guess', columns: standardColumns(uniqueMobile()) });
    expect(answer.status).toBe(401);
    expect(google.roundTrips.commands()).toEqual(['GetItemCommand']);
  });
});

describe('200 Lead received: whatever became of the lead', () => {
  it('stores a new lead and answers 200 Lead received', async () => {
    const mobile = uniqueMobile();
    const leadId = googleLeadId();
    const answer = await google.deliver({ leadId, formId: FORM, key, columns: standardColumns(mobile) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: true, message: 'Lead received' });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    const leads = await google.leadsOf('acc-g');
    expect(leads.find((lead) => lead.google_lead_id === leadId)).toMatchObject({ mobile_number: mobile, source: 'google_ads', sub_source: 'lead_form' });
  });

  it('answers a test lead 200 and records google_test_lead, storing no lead', async () => {
    const leadId = googleLeadId();
    const before = (await google.leadsOf('acc-g')).length;
    const answer = await google.deliver({ leadId, formId: FORM, key, isTest: true, columns: standardColumns(uniqueMobile()) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: true, message: 'Lead received' });
    expect(await google.leadsOf('acc-g')).toHaveLength(before);
    const record = (await google.rejectionsOf('acc-g')).find((rejection) => rejection.google_lead_id === leadId);
    expect(record).toMatchObject({ endpoint: 'google_ads', reason: 'google_test_lead', google_lead_id: leadId });
  });

  it('answers a lead refused by validation 200 and records it with its problems', async () => {
    const leadId = googleLeadId();
    const answer = await google.deliver({ leadId, formId: FORM, key, columns: [{ column_id: 'PHONE_NUMBER', string_value: '12345' }] });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: true, message: 'Lead received' });
    const record = (await google.rejectionsOf('acc-g')).find((rejection) => rejection.google_lead_id === leadId);
    expect(record).toMatchObject({ endpoint: 'google_ads', reason: 'validation', google_lead_id: leadId });
    expect(Object.keys(record!.fields)).toEqual(['name', 'mobile_number']);
  });
});

describe('the forms a warm function knows (cached like API keys, for the configuration TTL)', () => {
  it('takes a form connected after a delivery for it was refused, at once', async () => {
    const columns = standardColumns(uniqueMobile());
    expect((await google.deliver({ formId: '40000000050', key: 'not-yet', columns })).status).toBe(401);
    const newKey = await google.connectForm('acc-g', '40000000050');
    expect((await google.deliver({ formId: '40000000050', key: newKey, columns })).status).toBe(200);
  });

  it('takes the new key of a form it has cached at once after a rotation', async () => {
    const oldKey = await google.connectForm('acc-g', '40000000051');
    expect((await google.deliver({ formId: '40000000051', key: oldKey, columns: standardColumns(uniqueMobile()) })).status).toBe(200);
    const { key: newKey } = await rotateGoogleFormKey(google.formAdmin, '40000000051');
    expect((await google.deliver({ formId: '40000000051', key: newKey!, columns: standardColumns(uniqueMobile()) })).status).toBe(200);
  });

  it('answers 401 for a form whose account no longer exists, recording nothing', async () => {
    await google.seedAccount({ id: 'acc-gone', projects: { 'PRJ-1': ['CMP-1'] } });
    const goneKey = await google.connectForm('acc-gone', '40000000052');
    await createDocumentClient({ client: google.client }).send(new DeleteCommand({ TableName: google.tables.config, Key: { pk: 'ACCOUNT#acc-gone', sk: 'ACCOUNT' } }));
    const answer = await google.deliver({ formId: '40000000052', key: goneKey, columns: standardColumns(uniqueMobile()) });
    expect(answer).toMatchObject({ status: 401, body: { status: false, message: 'Invalid google_key' } });
    expect(await google.rejectionsOf('acc-gone')).toHaveLength(0);
  });
});
