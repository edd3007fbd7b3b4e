/**
 * Meta's and Google's lead form deliveries as they publish them (CONTRACT.md sections 8, 10 and 20), each
 * through its handlers against DynamoDB Local: its answer, what it stored, every mapped field. The form's
 * own questions become `question: answer` lines of notes from both, through one formatter.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { googleTestService, type GoogleTestService } from '../support/google-service.ts';
import { metaTestService, type MetaTestService } from '../support/meta-service.ts';
import { shapeOf, shapesOf } from './shapes.ts';

describe("Meta's leadgen notification and Graph lead, with the form's own questions", () => {
  let meta: MetaTestService;
  const ACCOUNT = 'acc-meta-shapes';
  const { notification, graph_lead: graphLead } = shapeOf('meta', 'leadgen-with-custom-questions');
  const { page_id: pageId, form_id: formId, leadgen_id: leadgenId } = notification.entry[0].changes[0].value;

  beforeAll(async () => {
    meta = await metaTestService();
    await meta.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb', 'ig'] });
    await meta.connectPage(ACCOUNT, pageId, 'EAAB-shapes-page-token', { [formId]: { projectID: 'PRJ-1', campaignID: 'CMP-1' } });
    meta.graph.serve(leadgenId, 'EAAB-shapes-page-token', graphLead);
  });
  afterAll(async () => {
    meta.queue.stop();
    await meta.graph.close();
  });

  it('are each run by a test here', () => {
    expect(shapesOf('meta')).toEqual(['leadgen-with-custom-questions']);
  });

  it("is one lead with its mapped fields, the ad's names, and the custom questions as notes", async () => {
    expect(await meta.notify(notification)).toMatchObject({ status: 200 });
    await meta.queue.idle();
    const leads = (await meta.leadsOf(ACCOUNT)).filter((lead) => lead.meta_leadgen_id === leadgenId);
    expect(leads).toEqual([
      expect.objectContaining({
        name: 'Rohan Kulkarni',
        mobile_number: '9876500201',
        email: 'rohan.k@example.in',
        location: 'Pune',
        source: 'social',
        sub_source: 'ig',
        platform: 'ig',
        projectID: 'PRJ-1',
        campaignID: 'CMP-1',
        social_campaign: 'Skyline Dec launch',
        social_adset: 'Pune 25-45',
        social_ad: '3 BHK video',
        notes: 'budget: 80L - 1 Cr\npreferred_location: Hinjewadi\nwhen_are_you_planning_to_buy?: within_3_months\nwhich_configurations_interest_you?: 2_bhk, 3_bhk',
        meta_leadgen_id: leadgenId,
      }),
    ]);
    expect(await meta.rejectionsOf(ACCOUNT)).toEqual([]);
  });
});

describe("Google's lead form webhook deliveries", () => {
  let google: GoogleTestService;
  let key: string;
  const ACCOUNT = 'acc-google-shapes';

  beforeAll(async () => {
    google = await googleTestService();
    await google.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] } });
    key = await google.connectForm(ACCOUNT, String(shapeOf('google', 'test-data').delivery.form_id));
  });

  /** The sample as Google posts it, with the key the form was connected with. */
  const deliver = (name: string) => {
    const { delivery } = shapeOf('google', name);
    return { delivery, answer: google.deliver(JSON.stringify({ ...delivery, google_key: key })) };
  };
  const storedFor = async (leadId: string) => ({
    leads: (await google.leadsOf(ACCOUNT)).filter((lead) => lead.google_lead_id === leadId),
    records: (await google.rejectionsOf(ACCOUNT)).filter((record) => record.google_lead_id === leadId),
  });

  it('are each run by a test here', () => {
    expect(shapesOf('google')).toEqual(['lead-with-custom-columns', 'test-data']);
  });

  it("Send test data (is_test, a US number) is answered Lead received and kept as a google_test_lead record, no lead", async () => {
    const { delivery, answer } = deliver('test-data');
    expect(await answer).toMatchObject({ status: 200, body: { status: true, message: 'Lead received' } });
    expect(await storedFor(delivery.lead_id)).toEqual({ leads: [], records: [expect.objectContaining({ endpoint: 'google_ads', reason: 'google_test_lead', google_lead_id: delivery.lead_id })] });
  });

  it('a live lead is one lead with its mapped columns, its ids, and its qualifying and custom questions as notes', async () => {
    const { delivery, answer } = deliver('lead-with-custom-columns');
    expect(await answer).toMatchObject({ status: 200, body: { status: true, message: 'Lead received' } });
    const { leads, records } = await storedFor(delivery.lead_id);
    expect(records).toEqual([]);
    expect(leads).toEqual([
      expect.objectContaining({
        name: 'Lakshmi Menon',
        mobile_number: '9876500202',
        email: 'lakshmi@example.in',
        location: 'Kochi',
        source: 'google_ads',
        sub_source: 'lead_form',
        projectID: 'PRJ-1',
        campaignID: 'CMP-1',
        notes: 'What is your budget?: 1 - 1.5 Cr\nPreferred possession date: Within a year',
        gclid: delivery.gcl_id,
        google_lead_id: delivery.lead_id,
        google_form_id: String(delivery.form_id),
        google_campaign_id: String(delivery.campaign_id),
        google_adgroup_id: String(delivery.adgroup_id),
        google_creative_id: String(delivery.creative_id),
      }),
    ]);
  });
});
