/**
 * Replays of the event archive skip erased leads (CONTRACT.md section 14: "Erased leads are never
 * delivered again"), against DynamoDB Local: leads made through a lead handler, their events as the
 * stream publishes them (the code `npm start` and the deployed pipes run: what the archive keeps),
 * the person erased through the admin API's handler, then the replay pipe's filter
 * (shared/lead-replays.ts, the handler of functions/lead-replays) given those events as the replay
 * queue hands them on: an SQS message whose body is what the CRM receives.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLeadStreamReader, type DeliveredEvent, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { DynamoDbStoredLeads } from '../../shared/dynamodb/stored-leads.ts';
import { replayFilterHandler, type QueuedReplay } from '../../shared/lead-replays.ts';
import { adminApi } from '../support/admin-handler.ts';
import { asFunction } from '../support/aws-calls.ts';
import { waitFor } from '../support/processes.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

const p1 = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const ACCOUNT = 'acc-replay';

/** An SQS message of the replay queue, as EventBridge Pipes hands it to the enrichment. */
const queued = (body: string): QueuedReplay & Record<string, unknown> => ({
  messageId: randomUUID(),
  receiptHandle: 'handle',
  body,
  attributes: { ApproximateReceiveCount: '1' },
  messageAttributes: {},
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:ap-south-1:111122223333:replays',
  awsRegion: 'ap-south-1',
});
const queuedEvent = (event: DeliveredEvent | Record<string, unknown>) => queued(JSON.stringify(event));

describe('Replaying the archive to the CRM skips erased leads', () => {
  let service: TestService;
  let reader: LeadStreamReader;
  const published: DeliveredEvent[] = [];
  const logs: Record<string, unknown>[] = [];
  const leads: Record<string, any> = {};
  const person = { mobile: uniqueMobile(), name: 'Asha Replay' };
  const other = { mobile: uniqueMobile(), name: 'Ravi Live' };
  let filter: ReturnType<typeof replayFilterHandler>;
  /** The filter's GetItem requests, as the document client sends them (before marshalling). */
  let getItems: () => Array<Record<string, any>>;

  /** The filter as the replay pipe's enrichment runs it: its DynamoDB calls are the lead-replays function's. */
  const replay = (messages: unknown[]) => asFunction('lead-replays', () => filter(messages as QueuedReplay[]));
  const createdEventOf = (leadId: string) => published.find((event) => event['detail-type'] === 'Lead Created' && (event.detail as any).lead.id === leadId)!;
  const erasedEventsOf = (leadId: string) => published.filter((event) => event['detail-type'] === 'Lead Erased' && (event.detail as any).lead_id === leadId);

  beforeAll(async () => {
    service = await testService();
    await service.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await service.issueKey(ACCOUNT);
    reader = await startLeadStreamReader({
      dynamodb: service.client,
      endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
      leadsTable: service.tables.leads,
      onEvent: (event) => void published.push(event),
      pollIntervalMs: 50,
    });
    const lead = async (body: Record<string, unknown>) => (await service.call('portala', { apiKey: key, body })).body.data;
    leads.erased = await lead(validBody('portala', p1, { name: person.name, mobile_number: person.mobile, email: `asha.${randomUUID().slice(0, 8)}@example.com` }));
    leads.live = await lead(validBody('portala', p1, { name: other.name, mobile_number: other.mobile }));
    // Another person's lead naming the erased person's number as its alternate: it keeps everything else.
    leads.lostAlternate = await lead(validBody('portala', p1, { name: 'Meera Alternate', mobile_number: uniqueMobile(), alternate_number: person.mobile }));
    for (const name of Object.keys(leads)) expect(leads[name]?.id).toBeDefined();
    await waitFor(() => Object.values(leads).every((l) => createdEventOf(l.id)), 'the Lead Created events of the three leads');

    // The person is erased after their Lead Created was published (and archived).
    const erasure = await adminApi(service)('POST', `/admin/v1/accounts/${ACCOUNT}/erasures`, { mobile_number: person.mobile });
    expect(erasure).toMatchObject({ status: 200, body: { leads: 1, alternate_numbers: 1 } });
    await waitFor(() => erasedEventsOf(leads.erased.id).length > 0 && erasedEventsOf(leads.lostAlternate.id).length > 0, 'the Lead Erased events');

    const calls: Array<Record<string, any>> = [];
    service.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'GetItemCommand') calls.push(args.input as Record<string, any>);
        return next(args);
      },
      { step: 'initialize', name: 'countReplayFilterGets' },
    );
    getItems = () => [...calls];
    filter = replayFilterHandler({
      leads: new DynamoDbStoredLeads(createDocumentClient({ client: service.client }), service.tables.leads),
      queue: { later: async () => undefined },
      log: (line) => void logs.push({ ...line }),
    });
  }, 90_000);

  afterAll(async () => {
    await reader?.stop();
  });

  describe('Lead Created', () => {
    it('of a lead erased since is not delivered', async () => {
      const archived = createdEventOf(leads.erased.id);
      expect((archived.detail as any).lead.mobile_number).toBe(person.mobile); // what the archive still holds
      expect(await replay([queuedEvent(archived)])).toEqual([]);
    });

    it('of a lead still stored is delivered as archived, whole', async () => {
      const archived = createdEventOf(leads.live.id);
      expect(await replay([queuedEvent(archived)])).toEqual([archived]);
    });

    it("of a lead that lost another person's number since is delivered without it, as the lead is now", async () => {
      const archived = createdEventOf(leads.lostAlternate.id);
      expect((archived.detail as any).lead.alternate_number).toBe(person.mobile);
      const [delivered] = (await replay([queuedEvent(archived)])) as any[];
      const { alternate_number: _gone, ...now } = (archived.detail as any).lead;
      expect(delivered).toEqual({ ...archived, detail: { account_id: ACCOUNT, lead: now } });
      expect(JSON.stringify(delivered)).not.toContain(person.mobile);
    });

    it("costs one strongly consistent GetItem of the lead's own item, reading only whether it is there and what it lost", async () => {
      const before = getItems().length;
      await replay([queuedEvent(createdEventOf(leads.live.id))]);
      const gets = getItems().slice(before);
      expect(gets).toHaveLength(1);
      expect(gets[0]).toMatchObject({
        TableName: service.tables.leads,
        Key: { pk: `LEADS#${ACCOUNT}#PRJ-1`, sk: `LEAD#${leads.live.id}` },
        ConsistentRead: true,
        ProjectionExpression: 'pk, erased_fields',
      });
    });
  });

  describe('Lead Erased', () => {
    it('is always delivered, though its lead is gone, and reads nothing', async () => {
      const before = getItems().length;
      const erased = erasedEventsOf(leads.erased.id);
      expect(await replay(erased.map(queuedEvent))).toEqual(erased);
      expect(getItems().length).toBe(before);
    });
  });

  describe('A batch', () => {
    it('keeps its order, and a malformed message in it is dropped and logged by its id without failing the rest', async () => {
      const live = createdEventOf(leads.live.id);
      const erased = erasedEventsOf(leads.erased.id)[0]!;
      const notJson = queued('{"id": "truncated');
      const noIds = queuedEvent({ ...live, detail: { account_id: ACCOUNT, lead: { name: 'No ids' } } });
      const otherSource = queuedEvent({ ...live, source: 'someone.else' });
      const otherType = queuedEvent({ ...live, 'detail-type': 'Lead Updated' });
      logs.length = 0;
      const delivered = await replay([notJson, queuedEvent(live), noIds, null, otherSource, queuedEvent(createdEventOf(leads.erased.id)), otherType, queuedEvent(erased)]);
      expect(delivered).toEqual([live, erased]);
      expect(logs).toEqual([
        expect.objectContaining({ level: 'error', delivered: 2, erased: 1, malformed: 5, malformedMessageIds: [notJson.messageId, noIds.messageId, 'unknown', otherSource.messageId, otherType.messageId] }),
      ]);
      // Counts and message ids only: nothing of a lead reaches the log.
      expect(JSON.stringify(logs)).not.toMatch(new RegExp(`${person.mobile}|${other.mobile}|${other.name}|${leads.live.id}`));
    });

    it('that is empty, or not a list, delivers nothing', async () => {
      expect(await replay([])).toEqual([]);
      expect(await filter({} as never)).toEqual([]);
    });

    it('fails whole when the table cannot answer: nothing is delivered unchecked, and the pipe receives the batch again', async () => {
      const missingTable = replayFilterHandler({
        leads: new DynamoDbStoredLeads(createDocumentClient({ client: service.client }), `${service.tables.leads}-missing`),
        queue: { later: async () => undefined },
        log: () => undefined,
      });
      await expect(missingTable([queuedEvent(createdEventOf(leads.live.id)), queuedEvent(erasedEventsOf(leads.erased.id)[0]!)])).rejects.toThrow();
    });
  });
});
