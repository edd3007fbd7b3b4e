/**
 * A Google lead downstream (CONTRACT.md sections 9 and 10): its Lead Created event from the Leads
 * table's stream, read by `npm start`'s stream reader with the deployed enrichment's code; and what
 * the request's log lines say about it, never the form's key nor the lead's contact details.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLeadStreamReader, type LeadCreatedDelivery as DeliveredEvent, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import { uniqueMobile } from '../support/service.ts';
import { waitFor } from '../support/processes.ts';
import { googleLeadId, googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';

let google: GoogleTestService;
let reader: LeadStreamReader;
let key: string;
const FORM = '43000000001';
const events: DeliveredEvent[] = [];

beforeAll(async () => {
  google = await googleTestService();
  await google.seedAccount({ id: 'acc-ev', projects: { 'PRJ-1': ['CMP-1'] } });
  key = await google.connectForm('acc-ev', FORM);
  reader = await startLeadStreamReader({
    dynamodb: google.client,
    endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
    leadsTable: google.tables.leads,
    onEvent: (event) => events.push(event as DeliveredEvent), // no erasure here: every event is a Lead Created one
    pollIntervalMs: 50,
  });
}, 30_000);
afterAll(async () => {
  await reader?.stop();
});

describe('the Lead Created event of a Google lead', () => {
  it('carries the whole stored lead, with its Google ids, and its account; a redelivery gives no second event', async () => {
    const leadId = googleLeadId();
    const mobile = uniqueMobile();
    const delivery = { leadId, formId: FORM, key, campaignId: '20000000000', gclId: 'gclid-1', columns: standardColumns(mobile, [{ column_id: 'CITY', string_value: 'Pune' }]) };
    expect((await google.deliver(delivery)).status).toBe(200);
    expect((await google.deliver(delivery)).status).toBe(200);
    const stored = (await google.leadsOf('acc-ev')).find((lead) => lead.google_lead_id === leadId)!;
    await waitFor(() => events.some((event) => event.detail.lead.id === stored.id), `the event of lead ${stored.id}`, 10_000);

    // A sentinel lead stored after the redelivery: once its event is in, any event of the redelivery would be too.
    const sentinel = googleLeadId();
    await google.deliver({ leadId: sentinel, formId: FORM, key, columns: standardColumns(uniqueMobile()) });
    const sentinelLead = (await google.leadsOf('acc-ev')).find((lead) => lead.google_lead_id === sentinel)!;
    await waitFor(() => events.some((event) => event.detail.lead.id === sentinelLead.id), 'the sentinel event', 10_000);

    const ofLead = events.filter((event) => event.detail.lead.google_lead_id === leadId);
    expect(ofLead).toHaveLength(1);
    expect(ofLead[0]).toMatchObject({ source: 'crm.lead-intake', 'detail-type': 'Lead Created' });
    expect(ofLead[0]!.detail).toEqual({ account_id: 'acc-ev', lead: stored });
    expect(stored).toMatchObject({ source: 'google_ads', sub_source: 'lead_form', google_form_id: FORM, google_campaign_id: '20000000000', gclid: 'gclid-1', location: 'Pune' });
  });
});

describe('the log lines', () => {
  it("name the account, outcome and lead, and never hold the form's key, the full mobile number or the e-mail address", async () => {
    const mobile = uniqueMobile();
    google.logs.length = 0;
    await google.deliver({ formId: FORM, key, columns: standardColumns(mobile, [{ column_id: 'EMAIL', string_value: 'asha.verma@example.com' }]) });
    await google.deliver({ formId: FORM, key: `${key}x`, columns: standardColumns(mobile) });
    await google.deliver({ formId: FORM, key, isTest: true, columns: standardColumns(mobile) });
    await google.deliver({ formId: FORM, key, columns: standardColumns('12345') });
    const lines = google.logs.map((line) => JSON.stringify(line));
    expect(google.logs.map((line) => [line.endpoint, line.status, line.outcome])).toEqual([
      ['google_ads', 200, 'created'],
      ['google_ads', 401, 'invalid_google_key'],
      ['google_ads', 200, 'google_test_lead'],
      ['google_ads', 200, 'validation'],
    ]);
    expect(google.logs[0]).toMatchObject({ accountId: 'acc-ev', leadId: expect.any(String) });
    // No part of the person's mobile or e-mail (CONTRACT.md section 14).
    expect(google.logs[0]).not.toHaveProperty('mobile');
    expect(google.logs[0]).not.toHaveProperty('email');
    for (const line of lines) {
      expect(line).not.toContain(key);
      expect(line).not.toContain(key.slice(3, 20));
      expect(line).not.toContain(mobile);
      expect(line).not.toContain('asha.verma');
    }
  });
});
