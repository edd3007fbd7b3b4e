/**
 * What a Google Ads lead form delivery becomes (CONTRACT.md section 10): the columns mapped to the
 * lead's fields, the rest into notes in the order sent, Google's 64-bit ids as their exact digits,
 * and section 2's rules for the mobile number.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { LeadRecord } from '../../shared/domain/lead.ts';
import { uniqueMobile } from '../support/service.ts';
import { googleLeadId, googleTestService, type DeliveryParts, type GoogleColumnData, type GoogleTestService } from '../support/google-service.ts';

let google: GoogleTestService;
let key: string;
const FORM = '9223372036854775807';

beforeAll(async () => {
  google = await googleTestService();
  await google.seedAccount({ id: 'acc-map', projects: { 'PRJ-1': ['CMP-1'] } });
  key = await google.connectForm('acc-map', FORM);
});

/** Delivers the columns and returns the stored lead of the delivery. */
const leadOf = async (columns: readonly GoogleColumnData[], parts: Partial<DeliveryParts> = {}): Promise<LeadRecord> => {
  const leadId = parts.leadId ?? googleLeadId();
  const answer = await google.deliver({ formId: FORM, key, columns, ...parts, leadId });
  expect(answer.body).toEqual({ status: true, message: 'Lead received' });
  const lead = (await google.leadsOf('acc-map')).find((stored) => stored.google_lead_id === leadId);
  if (!lead) throw new Error(`no lead stored: ${JSON.stringify(await google.rejectionsOf('acc-map'))}`);
  return lead;
};

const phone = (mobile = uniqueMobile()): GoogleColumnData => ({ column_id: 'PHONE_NUMBER', column_name: 'User Phone', string_value: `+91${mobile}` });

describe('the name', () => {
  it('comes from FULL_NAME', async () => {
    const lead = await leadOf([{ column_id: 'FULL_NAME', column_name: 'Full Name', string_value: '  Asha Verma ' }, phone()]);
    expect(lead.name).toBe('Asha Verma');
  });

  it('else from FIRST_NAME and LAST_NAME joined by a space', async () => {
    const lead = await leadOf([{ column_id: 'FIRST_NAME', string_value: 'Ravi' }, { column_id: 'LAST_NAME', string_value: ' Kumar ' }, phone()]);
    expect(lead.name).toBe('Ravi Kumar');
  });

  it('is FIRST_NAME alone when there is no LAST_NAME', async () => {
    expect((await leadOf([{ column_id: 'FIRST_NAME', string_value: 'Ravi' }, phone()])).name).toBe('Ravi');
  });

  it('is LAST_NAME alone when there is no FIRST_NAME', async () => {
    expect((await leadOf([{ column_id: 'LAST_NAME', string_value: 'Kumar' }, phone()])).name).toBe('Kumar');
  });

  it('prefers FULL_NAME over FIRST_NAME and LAST_NAME, which then go nowhere', async () => {
    const lead = await leadOf([
      { column_id: 'FIRST_NAME', string_value: 'Ravi' },
      { column_id: 'FULL_NAME', string_value: 'Asha Verma' },
      { column_id: 'LAST_NAME', string_value: 'Kumar' },
      phone(),
    ]);
    expect(lead.name).toBe('Asha Verma');
    expect(lead.notes).toBeUndefined();
  });
});

describe('the mobile number', () => {
  it('reads a +91 number as its 10 digits', async () => {
    const mobile = uniqueMobile();
    expect((await leadOf([{ column_id: 'FULL_NAME', string_value: 'A' }, phone(mobile)])).mobile_number).toBe(mobile);
  });

  it('reads +91 with spaces and dashes as its 10 digits', async () => {
    const mobile = uniqueMobile();
    const spaced = `+91 ${mobile.slice(0, 5)}-${mobile.slice(5)}`;
    expect((await leadOf([{ column_id: 'FULL_NAME', string_value: 'A' }, { column_id: 'PHONE_NUMBER', string_value: spaced }])).mobile_number).toBe(mobile);
  });

  it('refuses a non-Indian number as a validation rejection, recorded with the google_lead_id and no digit of the number', async () => {
    const leadId = googleLeadId();
    const answer = await google.deliver({ leadId, formId: FORM, key, columns: [{ column_id: 'FULL_NAME', string_value: 'John' }, { column_id: 'PHONE_NUMBER', string_value: '+44 20 7946 0958' }] });
    expect(answer.status).toBe(200);
    const record = (await google.rejectionsOf('acc-map')).find((rejection) => rejection.google_lead_id === leadId);
    expect(record).toMatchObject({ reason: 'validation', endpoint: 'google_ads' });
    // A number that names no one: no erasure could reach a trace of it (CONTRACT.md section 12).
    expect(record).not.toHaveProperty('mobile');
    expect(Object.keys(record!.fields)).toEqual(['mobile_number']);
  });
});

describe('email and city', () => {
  it('takes EMAIL, and CITY as location', async () => {
    const lead = await leadOf([{ column_id: 'FULL_NAME', string_value: 'A' }, phone(), { column_id: 'EMAIL', string_value: 'asha@example.com' }, { column_id: 'CITY', string_value: 'Pune' }]);
    expect(lead).toMatchObject({ email: 'asha@example.com', location: 'Pune' });
  });

  it('takes WORK_EMAIL when there is no EMAIL', async () => {
    expect((await leadOf([{ column_id: 'FULL_NAME', string_value: 'A' }, phone(), { column_id: 'WORK_EMAIL', string_value: 'asha@corp.example' }])).email).toBe('asha@corp.example');
  });

  it('prefers EMAIL to WORK_EMAIL, and keeps WORK_EMAIL out of the notes', async () => {
    const lead = await leadOf([
      { column_id: 'FULL_NAME', string_value: 'A' },
      phone(),
      { column_id: 'WORK_EMAIL', string_value: 'asha@corp.example' },
      { column_id: 'EMAIL', string_value: 'asha@example.com' },
    ]);
    expect(lead.email).toBe('asha@example.com');
    expect(lead.notes).toBeUndefined();
  });
});

describe('notes', () => {
  it('holds every other column as "name: value", in the order sent, column_id when it has no name', async () => {
    const lead = await leadOf([
      { column_id: 'FULL_NAME', string_value: 'A' },
      { column_id: 'budget', column_name: 'What is your budget?', string_value: ' 80 lakh ' },
      phone(),
      { column_id: 'POSTAL_CODE', string_value: '411001' },
      { column_id: 'CITY', string_value: 'Pune' },
      { column_id: 'visit', column_name: 'Site visit', string_value: 'Saturday' },
    ]);
    expect(lead.notes).toBe('What is your budget?: 80 lakh\nPOSTAL_CODE: 411001\nSite visit: Saturday');
  });

  it('is cut to 5,000 characters and trimmed', async () => {
    const lead = await leadOf([
      { column_id: 'FULL_NAME', string_value: 'A' },
      phone(),
      { column_id: 'a', column_name: 'A', string_value: 'x'.repeat(4993) },
      { column_id: 'b', column_name: 'B', string_value: 'more' },
    ]);
    // "A: " and 4,993 x's are 4,996 characters: the cut keeps "\nB: " of the next line, and the trim drops its space.
    expect(lead.notes).toBe(`A: ${'x'.repeat(4993)}\nB:`);
  });
});

describe("Google's ids and the lead record", () => {
  it('stores a 19-digit form id, and the campaign, ad group and creative ids, as their exact digits', async () => {
    const lead = await leadOf([{ column_id: 'FULL_NAME', string_value: 'A' }, phone()], {
      campaignId: '9007199254740993',
      adgroupId: '123456789012345678',
      creativeId: '20000000000',
      gclId: 'EAIaIQobChMI-gclid',
    });
    expect(lead).toMatchObject({
      google_form_id: '9223372036854775807',
      google_campaign_id: '9007199254740993',
      google_adgroup_id: '123456789012345678',
      google_creative_id: '20000000000',
      gclid: 'EAIaIQobChMI-gclid',
    });
  });

  it('is the lead record of section 4 with source google_ads, sub_source lead_form and the form\'s project and campaign', async () => {
    const mobile = uniqueMobile();
    const leadId = googleLeadId();
    const lead = await leadOf([{ column_id: 'FULL_NAME', string_value: 'Asha' }, phone(mobile)], { leadId });
    expect(lead).toEqual({
      id: expect.any(String),
      name: 'Asha',
      mobile_number: mobile,
      projectID: 'PRJ-1',
      campaignID: 'CMP-1',
      source: 'google_ads',
      sub_source: 'lead_form',
      is_repeated: false,
      parent_lead_id: null,
      created_at: expect.any(String),
      google_lead_id: leadId,
      google_form_id: FORM,
    });
  });
});
