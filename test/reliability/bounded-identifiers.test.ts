/**
 * CONTRACT.md section 14: every identifier a webhook sends and the service stores (Google's lead_id and
 * form ids, Meta's leadgen, page, form and ad ids) is at most 200 characters; a longer one refuses the
 * delivery 400 with section 1's envelope, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fieldData, leadgenNotification } from '../support/fake-graph.ts';
import { googleLeadId, googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';
import { metaTestService, type MetaTestService } from '../support/meta-service.ts';
import { uniqueMobile } from '../support/service.ts';

let google: GoogleTestService;
let meta: MetaTestService;
let key: string;
const FORM = '43000000001';
const TOKEN = 'EAAB-page-token-bounded-ids';

beforeAll(async () => {
  google = await googleTestService();
  await google.seedAccount({ id: 'acc-ids', projects: { 'PRJ-1': ['CMP-1'] } });
  key = await google.connectForm('acc-ids', FORM);
  meta = await metaTestService();
  await meta.seedAccount({ id: 'acc-ids-meta', projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb', 'ig'] });
  await meta.connectPage('acc-ids-meta', '1201', TOKEN, { '2201': { projectID: 'PRJ-1', campaignID: 'CMP-1' } });
});
afterAll(async () => {
  meta.queue.stop();
  await meta.graph.close();
});

describe('a Google delivery', () => {
  const stored = async () => ({ leads: await google.leadsOf('acc-ids'), rejections: await google.rejectionsOf('acc-ids') });

  it('stores a lead_id of exactly 200 characters', async () => {
    const leadId = googleLeadId().padEnd(200, 'x');
    const answer = await google.deliver({ leadId, formId: FORM, key, columns: standardColumns(uniqueMobile()) });
    expect(answer.status).toBe(200);
    expect((await stored()).leads.map((lead) => lead.google_lead_id)).toContain(leadId);
  });

  it.each([
    ['a 60,000-character lead_id', 'lead_id', { leadId: 'L'.repeat(60_000) }],
    ['a 201-character lead_id', 'lead_id', { leadId: 'L'.repeat(201) }],
    ['a 201-character gcl_id', 'gcl_id', { gclId: 'G'.repeat(201) }],
    ['a 201-digit campaign_id', 'campaign_id', { campaignId: '9'.repeat(201) }],
  ])('refuses %s 400 with the envelope, and stores nothing', async (_case, member, parts) => {
    const before = await stored();
    const answer = await google.deliver({ leadId: googleLeadId(), formId: FORM, key, columns: standardColumns(uniqueMobile()), ...parts });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ status: false, message: `${member} must be at most 200 characters` });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expect(await stored()).toEqual(before);
  });

  it('refuses a test lead with a long lead_id without recording it', async () => {
    const before = await stored();
    const answer = await google.deliver({ leadId: 'T'.repeat(500), formId: FORM, key, isTest: true, columns: standardColumns(uniqueMobile()) });
    expect(answer.status).toBe(400);
    expect(await stored()).toEqual(before);
  });
});

describe('a Meta notification', () => {
  it('refuses a leadgen id over 200 characters 400 with the envelope, and queues nothing', async () => {
    const leadgenId = '7'.repeat(201);
    meta.graph.serve(leadgenId, TOKEN, { platform: 'fb', form_id: '2201', field_data: fieldData({ full_name: 'Asha Verma', phone_number: '9000007001' }) });
    const answer = await meta.notify(leadgenNotification([{ pageId: '1201', leadgenId, formId: '2201' }]));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ status: false, message: 'leadgen_id must be at most 200 characters' });
    await meta.queue.idle();
    expect(await meta.leadsOf('acc-ids-meta')).toEqual([]);
    expect(await meta.rejectionsOf('acc-ids-meta')).toEqual([]);
  });

  it('takes a leadgen id of 200 characters', async () => {
    const leadgenId = '8'.repeat(200);
    meta.graph.serve(leadgenId, TOKEN, { platform: 'fb', form_id: '2201', field_data: fieldData({ full_name: 'Asha Verma', phone_number: '9000007002' }) });
    const answer = await meta.notify(leadgenNotification([{ pageId: '1201', leadgenId, formId: '2201' }]));
    expect(answer.status).toBe(200);
    await meta.queue.idle();
    expect((await meta.leadsOf('acc-ids-meta')).map((lead) => lead.meta_leadgen_id)).toContain(leadgenId);
  });
});
