/**
 * A replay that overlaps an erasure still ends with the lead erased at the CRM (CONTRACT.md sections
 * 12 and 14; docs/decisions/0010-nothing-waits-unerased.md), against DynamoDB Local: leads made through
 * a lead handler, their events as the stream publishes them (what the archive keeps), erasures through
 * the admin API's handler, and the replay pipe played out step by step around the filter
 * (shared/lead-replays.ts): the queue hands it a message, it answers what to post, the pipe posts it.
 * The erasure comes between the filter's answer and the post, where no check can see it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLeadStreamReader, type DeliveredEvent, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { DynamoDbStoredLeads } from '../../shared/dynamodb/stored-leads.ts';
import { ERASURE_REPEAT_AFTER_HOURS, RECHECK_DELAY_SECONDS, replayFilterHandler, type QueuedReplay } from '../../shared/lead-replays.ts';
import { adminApi } from '../support/admin-handler.ts';
import { asFunction } from '../support/aws-calls.ts';
import { waitFor } from '../support/processes.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

const p1 = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const ACCOUNT = 'acc-replay-race';

describe('A replay overlapping an erasure', () => {
  let service: TestService;
  let reader: LeadStreamReader;
  let key: string;
  const published: DeliveredEvent[] = [];
  /** What the filter left on the replay queue, with its message timer. */
  const queued: Array<{ body: string; delaySeconds: number }> = [];
  let filter: ReturnType<typeof replayFilterHandler>;
  let failQueue = false;
  /** The filter's clock: the real one unless a test moves it. */
  let clock: (() => Date) | undefined;

  const message = (body: string): QueuedReplay => ({ messageId: randomUUID(), body });
  const replay = (bodies: string[]) => asFunction('lead-replays', () => filter(bodies.map(message)));
  const createdEventOf = (leadId: string) => published.find((event) => event['detail-type'] === 'Lead Created' && (event.detail as any).lead.id === leadId)!;
  const liveErasedOf = (leadId: string) => published.find((event) => event['detail-type'] === 'Lead Erased' && (event.detail as any).lead_id === leadId);
  const erase = async (mobile: string) => {
    const answer = await adminApi(service)('POST', `/admin/v1/accounts/${ACCOUNT}/erasures`, { mobile_number: mobile });
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const storeLead = async (fields: Record<string, unknown>) => {
    const lead = (await service.call('portala', { apiKey: key, body: validBody('portala', p1, fields) })).body.data;
    expect(lead?.id).toBeDefined();
    await waitFor(() => createdEventOf(lead.id) !== undefined, 'its Lead Created');
    return lead as { id: string };
  };
  /** The queue's messages the filter left since `from`, taken off the queue. */
  const takeQueued = (from: number) => queued.splice(from);

  beforeAll(async () => {
    service = await testService();
    await service.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] } });
    key = await service.issueKey(ACCOUNT);
    reader = await startLeadStreamReader({
      dynamodb: service.client,
      endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
      leadsTable: service.tables.leads,
      onEvent: (event) => void published.push(event),
      pollIntervalMs: 50,
    });
    filter = replayFilterHandler({
      leads: new DynamoDbStoredLeads(createDocumentClient({ client: service.client }), service.tables.leads),
      queue: {
        later: async (body, delaySeconds) => {
          if (failQueue) throw new Error('the queue is unavailable');
          queued.push({ body, delaySeconds });
        },
      },
      log: () => undefined,
      now: () => (clock ? clock() : new Date()),
    });
  }, 90_000);

  afterAll(async () => {
    await reader?.stop();
  });

  it('erased between the filter and its post: the whole lead was posted, and its re-check delivers a Lead Erased', async () => {
    const mobile = uniqueMobile();
    const lead = await storeLead({ name: 'Kiran Race', mobile_number: mobile });
    const archived = createdEventOf(lead.id);
    const start = queued.length;

    const toPost = await replay([JSON.stringify(archived)]);
    expect(toPost).toEqual([archived]); // checked: still stored
    await erase(mobile); // answers before the pipe posts
    const recheck = takeQueued(start);
    expect(recheck).toHaveLength(1);
    expect(recheck[0]!.delaySeconds).toBe(RECHECK_DELAY_SECONDS);
    // The re-check names the lead by its ids, never by the person's data.
    expect(recheck[0]!.body).not.toMatch(new RegExp(`${mobile}|Kiran`));

    const [erased, ...more] = await replay([recheck[0]!.body]);
    expect(more).toEqual([]);
    expect(erased).toEqual({ id: expect.any(String), source: 'crm.lead-intake', 'detail-type': 'Lead Erased', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), detail: { account_id: ACCOUNT, lead_id: lead.id, reason: 'request' } });
    // A new event, not the live one again: a receiver that deduplicates by event id still takes it.
    await waitFor(() => liveErasedOf(lead.id) !== undefined, 'the live Lead Erased');
    expect(erased!.id).not.toBe(liveErasedOf(lead.id)!.id);
  });

  it('ends at the CRM with a Lead Erased after the replayed Lead Created, though the live Lead Erased came first', async () => {
    const mobile = uniqueMobile();
    const lead = await storeLead({ name: 'Lata Outage', mobile_number: mobile });
    const crm: Array<Record<string, any>> = [];
    /** One pipe execution: the filter's answer for one message, then each event it returned posted. */
    const execution = async (body: string, between: () => Promise<void> = async () => undefined) => {
      const toPost = await replay([body]);
      await between();
      crm.push(...toPost);
    };
    const start = queued.length;

    await execution(JSON.stringify(createdEventOf(lead.id)), async () => {
      await erase(mobile);
      await waitFor(() => liveErasedOf(lead.id) !== undefined, 'the live Lead Erased');
      crm.push(liveErasedOf(lead.id)!); // the live delivery is quicker than the replay's post
    });
    for (const { body } of takeQueued(start)) await execution(body); // the re-checks, come due

    const aboutTheLead = crm.map((event) => [event['detail-type'], event.detail.lead?.id ?? event.detail.lead_id]);
    expect(aboutTheLead).toEqual([
      ['Lead Erased', lead.id],
      ['Lead Created', lead.id],
      ['Lead Erased', lead.id],
    ]);
  });

  it("that took only another person's number named as the lead's alternate: the re-check delivers a Lead Erased of that field", async () => {
    const alternate = uniqueMobile();
    const lead = await storeLead({ name: 'Mohan Keeps', mobile_number: uniqueMobile(), alternate_number: alternate });
    const start = queued.length;
    expect(await replay([JSON.stringify(createdEventOf(lead.id))])).toEqual([createdEventOf(lead.id)]);
    expect(await erase(alternate)).toMatchObject({ leads: 0, alternate_numbers: 1 });

    const delivered = await replay(takeQueued(start).map(({ body }) => body));
    expect(delivered.map((event) => [event['detail-type'], event.detail])).toEqual([['Lead Erased', { account_id: ACCOUNT, lead_id: lead.id, fields: ['alternate_number'], reason: 'request' }]]);
  });

  it('that took nothing of the lead: its re-check delivers nothing', async () => {
    const lead = await storeLead({ name: 'Nisha Stays', mobile_number: uniqueMobile() });
    const start = queued.length;
    await replay([JSON.stringify(createdEventOf(lead.id))]);
    await erase(uniqueMobile()); // someone else
    expect(await replay(takeQueued(start).map(({ body }) => body))).toEqual([]);
  });

  it('a lead whose re-check cannot be queued is not passed on: the batch fails and comes back, checked again', async () => {
    const lead = await storeLead({ name: 'Om Waits', mobile_number: uniqueMobile() });
    failQueue = true;
    try {
      await expect(replay([JSON.stringify(createdEventOf(lead.id))])).rejects.toThrow('the queue is unavailable');
    } finally {
      failQueue = false;
    }
  });
});

describe('A live Lead Erased (deployed: the live delivery retries out of order for 24 hours during a CRM outage)', () => {
  let service: TestService;
  let reader: LeadStreamReader;
  const published: DeliveredEvent[] = [];
  const queued: Array<{ body: string; delaySeconds: number }> = [];
  let now = new Date();
  let filter: ReturnType<typeof replayFilterHandler>;
  /** What the erasure repeats rule queues for a live Lead Erased: the delivered shape, wrapped. */
  const repeatOf = (event: DeliveredEvent) => JSON.stringify({ repeat: event });
  const replay = (bodies: string[]) => asFunction('lead-replays', () => filter(bodies.map((body) => ({ messageId: randomUUID(), body }))));

  beforeAll(async () => {
    service = await testService();
    await service.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] } });
    reader = await startLeadStreamReader({
      dynamodb: service.client,
      endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
      leadsTable: service.tables.leads,
      onEvent: (event) => void published.push(event),
      pollIntervalMs: 50,
    });
    filter = replayFilterHandler({
      leads: new DynamoDbStoredLeads(createDocumentClient({ client: service.client }), service.tables.leads),
      queue: { later: async (body, delaySeconds) => void queued.push({ body, delaySeconds }) },
      log: () => undefined,
      now: () => now,
    });
  }, 90_000);

  afterAll(async () => {
    await reader?.stop();
  });

  it('is held on the queue, 15 minutes at a time, then delivered again as a new event once no Lead Created of its lead can still be on its way', async () => {
    const key = await service.issueKey(ACCOUNT);
    const mobile = uniqueMobile();
    const lead = (await service.call('portala', { apiKey: key, body: validBody('portala', p1, { name: 'Pooja Outage', mobile_number: mobile }) })).body.data;
    expect((await adminApi(service)('POST', `/admin/v1/accounts/${ACCOUNT}/erasures`, { mobile_number: mobile })).status).toBe(200);
    await waitFor(() => published.some((event) => event['detail-type'] === 'Lead Erased' && (event.detail as any).lead_id === lead.id), 'the live Lead Erased');
    const live = published.find((event) => event['detail-type'] === 'Lead Erased' && (event.detail as any).lead_id === lead.id)!;
    const due = Date.parse(live.time) + ERASURE_REPEAT_AFTER_HOURS * 3_600_000;

    now = new Date(Date.parse(live.time) + 60_000);
    expect(await replay([repeatOf(live)])).toEqual([]);
    expect(queued.splice(0)).toEqual([{ body: repeatOf(live), delaySeconds: 900 }]);

    now = new Date(due - 100_000); // the last hop waits only what is left
    expect(await replay([repeatOf(live)])).toEqual([]);
    expect(queued.splice(0)).toEqual([{ body: repeatOf(live), delaySeconds: 100 }]);

    now = new Date(due);
    const [again, ...more] = await replay([repeatOf(live)]);
    expect(more).toEqual([]);
    expect(queued).toEqual([]);
    expect(again).toEqual({ id: expect.any(String), source: 'crm.lead-intake', 'detail-type': 'Lead Erased', time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), detail: { account_id: ACCOUNT, lead_id: lead.id, reason: 'request' } });
    expect(again!.id).not.toBe(live.id);
  });

  it('that is not one (no lead id, another type, no time) is dropped, not held', async () => {
    const erased = { id: 'e-1', source: 'crm.lead-intake', 'detail-type': 'Lead Erased', time: '2026-11-25T10:00:00Z', detail: { account_id: ACCOUNT, lead_id: 'L-1' } };
    expect(await replay([repeatOf({ ...erased, detail: { account_id: ACCOUNT } } as never), repeatOf({ ...erased, 'detail-type': 'Lead Created' } as never), repeatOf({ ...erased, time: 'soon' } as never)])).toEqual([]);
    expect(queued).toEqual([]);
  });
});
