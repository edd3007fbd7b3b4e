/**
 * Consent as the sender saw it given (CONTRACT.md section 18): an optional `consent` object on the four
 * endpoints, checked by their one schema of common fields, stored on the lead unchanged and carried whole
 * by its Lead Created event; a malformed one is a 422 field problem of `consent`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLeadStreamReader, type LeadCreatedDelivery, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import { waitFor } from '../support/processes.ts';
import { endpointNames, testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
let reader: LeadStreamReader;
const events: LeadCreatedDelivery[] = [];
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-consent', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb', 'ig', 'wp'] });
  apiKey = await service.issueKey('acc-consent');
  reader = await startLeadStreamReader({
    dynamodb: service.client,
    endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
    leadsTable: service.tables.leads,
    onEvent: (event) => events.push(event as LeadCreatedDelivery), // nothing is erased here: every event is a Lead Created one
    pollIntervalMs: 50,
  });
}, 30_000);
afterAll(async () => {
  await reader?.stop();
});

const storedLeads = () => service.repository.leadArchive.listLeads('acc-consent', ['PRJ-1']);
const inFiveMinutes = () => new Date(Date.now() + 4 * 60 * 1000).toISOString();

const given = { notice: 'https://skyline.example/privacy-v3', given_at: '2026-11-02T10:15:00+05:30', purposes: ['site_visit', 'project_updates'] };

describe.each(endpointNames)('consent on %s', (name) => {
  it('is stored on the lead exactly as sent, answered with it, and carried whole by Lead Created', async () => {
    // Its text is kept as sent: not trimmed like a field's text.
    const consent = { ...given, notice: ' privacy notice v3 ' };
    const mobile = uniqueMobile();
    const answer = await service.call(name, { apiKey, body: validBody(name, project, { mobile_number: mobile, consent }) });
    expect(answer.status).toBe(200);
    const lead = (await storedLeads()).find((stored) => stored.mobile_number === mobile)!;
    expect(lead.consent).toEqual(consent);
    // Read back with its members in the contract's order, whatever order DynamoDB keeps a map in.
    expect(JSON.stringify(lead.consent)).toBe(JSON.stringify(consent));
    // The social endpoint answers without the lead (section 1); the others answer it with its consent.
    if (name !== 'social') expect(answer.body.data).toEqual(lead);
    await waitFor(() => events.some((event) => event.detail.lead.id === lead.id), `the Lead Created event of ${lead.id}`, 10_000);
    expect(events.find((event) => event.detail.lead.id === lead.id)!.detail.lead.consent).toEqual(consent);
  });

  it('takes a consent without purposes, one given up to five minutes ahead of the clock, and null as no consent', async () => {
    const bare = await service.call(name, { apiKey, body: validBody(name, project, { consent: { notice: 'v3', given_at: inFiveMinutes() } }) });
    expect(bare.status).toBe(200);
    const none = await service.call(name, { apiKey, body: validBody(name, project, { consent: null }) });
    expect(none.status).toBe(200);
    if (name !== 'social') expect(none.body.data).not.toHaveProperty('consent');
  });

  it.each([
    ['text', 'yes', 'consent must be an object'],
    ['a list', [given], 'consent must be an object'],
    ['a number', 1, 'consent must be an object'],
    ['no notice', { given_at: given.given_at }, 'consent.notice is required'],
    ['an empty notice', { ...given, notice: '' }, 'consent.notice is required'],
    ['a notice over 500 characters', { ...given, notice: 'n'.repeat(501) }, 'consent.notice must be at most 500 characters'],
    ['no time', { notice: 'v3' }, 'consent.given_at is required'],
    ['a time without an offset', { ...given, given_at: '2026-11-02T10:15:00' }, 'consent.given_at must be an ISO 8601 time with an offset'],
    ['a date alone', { ...given, given_at: '2026-11-02' }, 'consent.given_at must be an ISO 8601 time with an offset'],
    ['a day that does not exist', { ...given, given_at: '2026-02-30T10:15:00Z' }, 'consent.given_at must be an ISO 8601 time with an offset'],
    ['a time more than five minutes ahead', { ...given, given_at: new Date(Date.now() + 10 * 60 * 1000).toISOString() }, 'consent.given_at must not be in the future'],
    ['purposes that are not a list', { ...given, purposes: 'site_visit' }, 'consent.purposes must be a list of text'],
    ['an empty purpose', { ...given, purposes: [''] }, 'consent.purposes entries must be 1 to 50 characters'],
    ['a purpose over 50 characters', { ...given, purposes: ['p'.repeat(51)] }, 'consent.purposes entries must be 1 to 50 characters'],
    ['a purpose that is not text', { ...given, purposes: [7] }, 'consent.purposes must be a list of text'],
    ['more than 10 purposes', { ...given, purposes: Array.from({ length: 11 }, (_, i) => `purpose-${i}`) }, 'consent.purposes must list at most 10 purposes'],
    ['a member the contract does not name', { ...given, ip: '203.0.113.9' }, 'consent.ip is not accepted'],
  ])('refuses a consent with %s as a field problem of consent, storing nothing', async (_, consent, message) => {
    const before = (await storedLeads()).length;
    const answer = await service.call(name, { apiKey, body: validBody(name, project, { consent }) });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe(message);
    expect(answer.body.errors).toEqual({ consent: [message] });
    expect((await storedLeads()).length).toBe(before);
  });
});
