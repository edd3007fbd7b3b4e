/**
 * `npm start`'s local delivery never leaves an erased lead at the CRM (CONTRACT.md sections 9 and 12;
 * docs/decisions/0010-nothing-waits-unerased.md), against DynamoDB Local: the stream reader and the
 * webhook sender wired as `npm start` wires them, a receiver standing in for the CRM that can be down
 * or slow, leads stored through a lead handler and people erased through the admin API's handler.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asTheLeadIsNow, startLeadStreamReader, webhookSender, type DeliveredEvent, type LeadStreamReader, type WebhookSender } from '../../scripts/local/lead-events.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { DynamoDbStoredLeads } from '../../shared/dynamodb/stored-leads.ts';
import { adminApi } from '../support/admin-handler.ts';
import { waitFor } from '../support/processes.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

const ACCOUNT = 'acc-events-erasure';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

let service: TestService;
let key: string;
let reader: LeadStreamReader;
let sender: WebhookSender;
let server: Server;
/** How the CRM answers a request now: a status, or a status after holding the answer. */
let answer: { status: number; holdMs?: number } = { status: 200 };
/** What reached the CRM, in order: each request as it arrived, and when its answer went out. */
const timeline: Array<{ at: 'received' | 'answered'; status: number; event: Record<string, any> }> = [];

const aboutLead = (leadId: string) => (entry: { event: Record<string, any> }) => (entry.event.detail.lead?.id ?? entry.event.detail.lead_id) === leadId;
const accepted = (leadId: string) => timeline.filter((entry) => entry.at === 'answered' && entry.status === 200).filter(aboutLead(leadId));
const received = (leadId: string, type: string) => timeline.filter((entry) => entry.at === 'received' && entry.event['detail-type'] === type).filter(aboutLead(leadId));

const storeLead = async (fields: Record<string, unknown>) => {
  const lead = (await service.call('portala', { apiKey: key, body: validBody('portala', project, fields) })).body.data;
  expect(lead?.id).toBeDefined();
  return lead as { id: string };
};
const erase = async (mobile: string) => {
  const erasure = await adminApi(service)('POST', `/admin/v1/accounts/${ACCOUNT}/erasures`, { mobile_number: mobile });
  expect(erasure.status).toBe(200);
  return erasure.body;
};

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] } });
  key = await service.issueKey(ACCOUNT);
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const event = JSON.parse(text);
      const { status, holdMs = 0 } = answer;
      timeline.push({ at: 'received', status, event });
      setTimeout(() => {
        timeline.push({ at: 'answered', status, event });
        response.writeHead(status).end();
      }, holdMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sender = webhookSender({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/leads`,
    firstDelayMs: 20,
    maxDelayMs: 200,
    // As npm start (scripts/start.ts): each Lead Created is sent as its lead is now.
    current: asTheLeadIsNow(new DynamoDbStoredLeads(createDocumentClient({ client: service.client }), service.tables.leads)),
  });
  reader = await startLeadStreamReader({
    dynamodb: service.client,
    endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
    leadsTable: service.tables.leads,
    onEvent: (event: DeliveredEvent) => void sender.deliver(event),
    pollIntervalMs: 50,
  });
}, 60_000);

afterAll(async () => {
  sender?.stop();
  await reader?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

describe('A lead erased while the CRM is down', () => {
  it('is not delivered whole when the CRM comes back: its Lead Created is dropped, and only its Lead Erased is taken', async () => {
    answer = { status: 503 };
    const mobile = uniqueMobile();
    const lead = await storeLead({ name: 'Rekha Outage', mobile_number: mobile });
    await waitFor(() => received(lead.id, 'Lead Created').length > 0, 'a first attempt of its Lead Created');
    await erase(mobile);
    await waitFor(() => received(lead.id, 'Lead Erased').length > 0, 'a first attempt of its Lead Erased');
    answer = { status: 200 };
    await waitFor(() => accepted(lead.id).length > 0, 'the CRM to take an event of the lead');
    await new Promise((resolve) => setTimeout(resolve, 500)); // any retry still due

    expect(accepted(lead.id).map((entry) => entry.event['detail-type'])).toEqual(['Lead Erased']);
    // Once erased, no attempt carried the person's details again.
    const erasedAt = timeline.findIndex((entry) => entry.event['detail-type'] === 'Lead Erased' && aboutLead(lead.id)(entry));
    expect(JSON.stringify(timeline.slice(erasedAt))).not.toContain(mobile);
  });

  it("that lost only another person's number is delivered without it, then its Lead Erased of that field", async () => {
    answer = { status: 503 };
    const alternate = uniqueMobile();
    const lead = await storeLead({ name: 'Suresh Keeps', mobile_number: uniqueMobile(), alternate_number: alternate });
    await waitFor(() => received(lead.id, 'Lead Created').length > 0, 'a first attempt of its Lead Created');
    expect(received(lead.id, 'Lead Created')[0]!.event.detail.lead.alternate_number).toBe(alternate);
    expect(await erase(alternate)).toMatchObject({ leads: 0, alternate_numbers: 1 });
    answer = { status: 200 };
    await waitFor(() => accepted(lead.id).length >= 2, 'the CRM to take both events of the lead');

    const [created, erased] = accepted(lead.id).map((entry) => entry.event);
    expect(created!['detail-type']).toBe('Lead Created');
    expect(created!.detail.lead).not.toHaveProperty('alternate_number');
    expect(created!.detail.lead.name).toBe('Suresh Keeps');
    expect(erased).toMatchObject({ 'detail-type': 'Lead Erased', detail: { account_id: ACCOUNT, lead_id: lead.id, fields: ['alternate_number'] } });
  });
});

describe("A lead erased while its Lead Created is being posted (checked, then posted: the check could not see it)", () => {
  it('has its Lead Erased sent only after that post has ended, so the CRM ends with the lead erased', async () => {
    answer = { status: 200, holdMs: 1_500 };
    const mobile = uniqueMobile();
    const lead = await storeLead({ name: 'Tara Slow', mobile_number: mobile });
    await waitFor(() => received(lead.id, 'Lead Created').length > 0, 'its Lead Created to reach the CRM');
    await erase(mobile);
    await waitFor(() => accepted(lead.id).some((entry) => entry.event['detail-type'] === 'Lead Erased'), 'its Lead Erased');
    answer = { status: 200 };

    const order = timeline.filter(aboutLead(lead.id)).map((entry) => `${entry.at} ${entry.event['detail-type']}`);
    expect(order).toEqual(['received Lead Created', 'answered Lead Created', 'received Lead Erased', 'answered Lead Erased']);
  });
});
