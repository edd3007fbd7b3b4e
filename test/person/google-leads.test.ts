/**
 * A person's data reaches the Google Ads endpoint's items too (CONTRACT.md sections 10 and 12): its
 * leads and rejection records are written through the shared lead transaction and rejection log, so
 * access finds them and erasure removes them; Google's redelivery of an erased lead is received and
 * stores nothing.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { PersonData } from '../../shared/domain/person-data.ts';
import { googleLeadId, googleTestService, standardColumns } from '../support/google-service.ts';
import { uniqueMobile } from '../support/service.ts';

let google: Awaited<ReturnType<typeof googleTestService>>;
let people: PersonData;
let key: string;
const formId = '42000000077';
const mobile = uniqueMobile();
const leadId = googleLeadId();

beforeAll(async () => {
  google = await googleTestService();
  await google.seedAccount({ id: 'acc-gp', projects: { 'PRJ-1': ['CMP-1'] } });
  key = await google.connectForm('acc-gp', formId);
  people = new PersonData(google.repository.accounts, google.repository.people);
  expect((await google.deliver({ leadId, formId, key, isTest: false, columns: standardColumns(mobile) })).status).toBe(200);
  expect((await google.deliver({ leadId: googleLeadId(), formId, key, isTest: true, columns: standardColumns(mobile) })).status).toBe(200);
}, 30_000);

describe('a person who came through Google Ads lead forms', () => {
  it('is found by access: the Google lead, and the record of the test lead that carried their number', async () => {
    const found = await people.access('acc-gp', { mobile_number: mobile });
    expect(found.leads.map((lead) => [lead.source, lead.google_lead_id])).toEqual([['google_ads', leadId]]);
    expect(found.rejections.map((record) => record.reason)).toEqual(['google_test_lead']);
  });

  it('is erased with exact counts, and Google redelivering the erased lead stores nothing', async () => {
    expect(await people.erase('acc-gp', { mobile_number: mobile })).toEqual({ leads: 1, rejections: 1, alternate_numbers: 0 });
    expect(await google.deliver({ leadId, formId, key, isTest: false, columns: standardColumns(mobile) })).toMatchObject({ status: 200, body: { status: true, message: 'Lead received' } });
    expect(await google.leadsOf('acc-gp')).toEqual([]);
    expect(await google.rejectionsOf('acc-gp')).toEqual([]);
    expect(await people.access('acc-gp', { mobile_number: mobile })).toEqual({ leads: [], rejections: [] });
  });
});
