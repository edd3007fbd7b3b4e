/**
 * Leads out: DynamoDB Local's stream of the Leads table, read by `npm start`'s stream reader with the
 * record-to-event code the deployed pipe's enrichment function runs, gives one Lead Created event per
 * stored lead, whole, and nothing else; the local webhook delivery retries until the receiver takes it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { handler as enrichment } from '../../functions/lead-events/handler.ts';
import { eventEnvelope, startLeadStreamReader, webhookSender, type LeadCreatedDelivery as DeliveredEvent, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import type { LeadRecord } from '../../shared/domain/lead.ts';
import { endpointNames, testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';
import { waitFor } from '../support/processes.ts';

let service: TestService;
let reader: LeadStreamReader;
const events: DeliveredEvent[] = [];
const keys: Record<string, string> = {};
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  for (const [id, duplicateSetting] of [['acc-events', 'ignore'], ['acc-events-merge', 'merge']] as const) {
    await service.seedAccount({ id, duplicateSetting, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
    keys[duplicateSetting] = await service.issueKey(id);
  }
  reader = await startLeadStreamReader({
    dynamodb: service.client,
    endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
    leadsTable: service.tables.leads,
    // No erasure happens here: every event is a Lead Created one.
    onEvent: (event) => events.push(event as DeliveredEvent),
    pollIntervalMs: 50,
  });
}, 30_000);

afterAll(async () => {
  await reader?.stop();
});

/** Stores one more lead and waits for its event: every event of what was done before it has then arrived too. */
const settle = async () => {
  const answer = await service.call('portala', { apiKey: keys.ignore!, body: validBody('portala', project) });
  const id = answer.body.data.id as string;
  await waitFor(() => events.some((e) => e.detail.lead.id === id), `the event of lead ${id}`, 10_000);
  return id;
};

/** Events that arrived during `action`, up to the lead that settles them. */
const eventsOf = async (action: () => Promise<unknown>): Promise<DeliveredEvent[]> => {
  await settle();
  const from = events.length;
  await action();
  const sentinel = await settle();
  return events.slice(from).filter((e) => e.detail.lead.id !== sentinel);
};

const storedLead = async (accountId: string, id: string): Promise<LeadRecord> =>
  (await service.repository.leadArchive.listLeads(accountId, ['PRJ-1'])).find((lead) => lead.id === id)!;

describe('a stored lead', () => {
  it.each(endpointNames)('from the %s endpoint gives one Lead Created event with the whole lead and its account', async (name) => {
    let answer: Awaited<ReturnType<TestService['call']>> | undefined;
    const body = validBody(name, project, { email: 'asha@example.com', notes: 'Wants a 3 BHK', ...(name === 'website' && { utm_source: 'google', utm_campaign: 'diwali' }) });
    const delivered = await eventsOf(async () => {
      answer = await service.call(name, { apiKey: keys.ignore!, body });
    });
    expect(answer!.status).toBe(200);
    expect(delivered).toHaveLength(1);
    const [event] = delivered;
    expect(event).toMatchObject({ source: 'crm.lead-intake', 'detail-type': 'Lead Created', id: expect.any(String), time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
    expect(event!.detail.account_id).toBe('acc-events');
    const stored = await storedLead('acc-events', event!.detail.lead.id);
    expect(event!.detail.lead).toEqual(stored);
    if (answer!.body.data) expect(event!.detail.lead).toEqual(answer!.body.data);
    expect(event!.detail.lead).toMatchObject({ name: 'Asha Verma', email: 'asha@example.com', source: name, is_repeated: false, parent_lead_id: null });
    expect(Object.keys(event!.detail.lead)).not.toEqual(expect.arrayContaining(['pk', 'sk', 'item_type', 'account_id']));
  });

  it('repeated under merge gives its own event, linked to the original', async () => {
    const mobile = uniqueMobile();
    const delivered = await eventsOf(async () => {
      await service.call('portalb', { apiKey: keys.merge!, body: validBody('portalb', project, { mobile_number: mobile }) });
      await service.call('portalb', { apiKey: keys.merge!, body: validBody('portalb', project, { mobile_number: mobile }) });
    });
    expect(delivered.map((e) => [e.detail.account_id, e.detail.lead.is_repeated])).toEqual([
      ['acc-events-merge', false],
      ['acc-events-merge', true],
    ]);
    expect(delivered[1]!.detail.lead.parent_lead_id).toBe(delivered[0]!.detail.lead.id);
  });
});

describe('no event', () => {
  it('for a dry run', async () => {
    const delivered = await eventsOf(() => service.call('website', { apiKey: keys.ignore!, body: validBody('website', project), headers: { 'x-dry-run': 'true' } }));
    expect(delivered).toEqual([]);
  });

  it('for an idempotent replay: one event for the first submission only', async () => {
    const body = validBody('social', project);
    const delivered = await eventsOf(async () => {
      const first = await service.call('social', { apiKey: keys.ignore!, body, headers: { 'Idempotency-Key': `events-${body.mobile_number}` } });
      const retry = await service.call('social', { apiKey: keys.ignore!, body, headers: { 'Idempotency-Key': `events-${body.mobile_number}` } });
      expect([first.status, retry.headers['idempotent-replayed']]).toEqual([200, 'true']);
    });
    expect(delivered).toHaveLength(1);
  });

  it('for a rejection: a duplicate under ignore, a validation failure, an unknown campaign', async () => {
    const body = validBody('portala', project);
    await service.call('portala', { apiKey: keys.ignore!, body });
    const delivered = await eventsOf(async () => {
      expect((await service.call('portala', { apiKey: keys.ignore!, body })).status).toBe(422);
      expect((await service.call('portala', { apiKey: keys.ignore!, body: { ...body, mobile_number: '12' } })).status).toBe(422);
      expect((await service.call('portala', { apiKey: keys.ignore!, body: validBody('portala', { projectID: 'PRJ-1', campaignID: 'CMP-9' }) })).status).toBe(422);
    });
    expect(delivered).toEqual([]);
  });
});

describe('the deployed enrichment function', () => {
  it('gives the same detail as the local reader for a record, and nothing for any other item', async () => {
    const image = {
      pk: { S: 'LEADS#acc-1#PRJ-1' }, sk: { S: 'LEAD#01J' }, item_type: { S: 'lead' }, account_id: { S: 'acc-1' },
      id: { S: '01J' }, name: { S: 'Asha' }, is_repeated: { BOOL: false }, parent_lead_id: { NULL: true }, sub_source: { NULL: true },
    };
    const claim = { ...image, item_type: { S: 'mobile_claim' } };
    expect(await enrichment([{ eventName: 'INSERT', dynamodb: { NewImage: image } }, { eventName: 'INSERT', dynamodb: { NewImage: claim } }, { eventName: 'MODIFY', dynamodb: { NewImage: image } }])).toEqual([
      { account_id: 'acc-1', lead: { id: '01J', name: 'Asha', is_repeated: false, parent_lead_id: null, sub_source: null } },
    ]);
  });
});

describe('the local webhook delivery', () => {
  const event = eventEnvelope({ account_id: 'acc-1', lead: { id: '01JWEBHOOK', name: 'Asha' } as unknown as LeadRecord });

  /** A receiver that answers each request with the next of `answers` (the last one from then on). */
  const receiver = async (answers: ((request: IncomingMessage, response: ServerResponse) => void)[]) => {
    const received: { headers: IncomingMessage['headers']; body: unknown }[] = [];
    const server: Server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: JSON.parse(text) });
        answers[Math.min(received.length - 1, answers.length - 1)]!(request, response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/leads`, received, close: () => new Promise((r) => server.close(r)) };
  };
  const status = (code: number) => (_: IncomingMessage, response: ServerResponse) => response.writeHead(code).end();

  it('retries 503 and 429 with back-off, then delivers the event as JSON with the Authorization header', async () => {
    const crm = await receiver([status(503), status(429), status(200)]);
    const lines: string[] = [];
    const outcome = await webhookSender({ url: crm.url, authorization: 'Bearer crm-token', firstDelayMs: 20, log: (line) => lines.push(line) }).deliver(event);
    await crm.close();
    expect(outcome).toBe('delivered');
    expect(crm.received).toHaveLength(3);
    for (const { headers, body } of crm.received) {
      expect(headers.authorization).toBe('Bearer crm-token');
      expect(headers['content-type']).toBe('application/json');
      expect(body).toEqual(event);
    }
    expect(Object.keys(crm.received[0]!.body as object)).toEqual(['id', 'source', 'detail-type', 'time', 'detail']);
    expect(lines.join('\n')).not.toContain('crm-token');
  });

  it('retries an answer slower than the timeout, and a refused connection until the receiver is up', async () => {
    const slow = await receiver([(_, response) => void setTimeout(() => response.writeHead(200).end(), 500), status(204)]);
    expect(await webhookSender({ url: slow.url, timeoutMs: 100, firstDelayMs: 20 }).deliver(event)).toBe('delivered');
    expect(slow.received).toHaveLength(2);
    await slow.close();

    const later = await receiver([status(200)]);
    await later.close();
    const sending = webhookSender({ url: later.url, firstDelayMs: 20 }).deliver(event);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const port = Number(new URL(later.url).port);
    const again = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => again.listen(port, '127.0.0.1', resolve));
    expect(await sending).toBe('delivered');
    await new Promise((resolve) => again.close(resolve));
  });

  it('does not retry a 4xx other than 429, and gives up after the retry window', async () => {
    const crm = await receiver([status(400)]);
    expect(await webhookSender({ url: crm.url, firstDelayMs: 20 }).deliver(event)).toBe('refused');
    expect(crm.received).toHaveLength(1);
    await crm.close();
    const down = await receiver([status(500)]);
    expect(await webhookSender({ url: down.url, firstDelayMs: 20, giveUpAfterMs: 100 }).deliver(event)).toBe('given_up');
    expect(down.received.length).toBeGreaterThan(1);
    await down.close();
  });
});
