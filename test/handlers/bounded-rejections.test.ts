import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { testService, validBody, type TestService } from '../support/service.ts';

/** CONTRACT.md section 7, "Bounded costs under abuse". */
let service: TestService;
let apiKey: string;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-b', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
  await service.seedAccount({ id: 'acc-flood', projects: { 'PRJ-1': ['CMP-1'] } });
  apiKey = await service.issueKey('acc-b');
});

/** The stored rejection items of an account, as DynamoDB holds them (a scan: tests only). */
const storedRejections = async (accountId: string) => {
  const { Items = [] } = await createDocumentClient({ client: service.client }).send(
    new ScanCommand({ TableName: service.tables.leads, FilterExpression: 'begins_with(pk, :pk)', ExpressionAttributeValues: { ':pk': `REJECTIONS#${accountId}#` } }),
  );
  return Items;
};
const itemBytes = (item: Record<string, unknown>) => Buffer.byteLength(JSON.stringify(item), 'utf8');

describe('a rejection record', () => {
  it('stores at most 8 KiB and 20 field problems for a portal request with 5,000 unknown fields, and answers every one', async () => {
    const unknown = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`f${i}`, 'x']));
    const answer = await service.call('portala', { apiKey, body: validBody('portala', project, unknown) });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toHaveLength(5000);

    const item = (await storedRejections('acc-b')).find((i) => i.requestId === answer.headers['x-request-id'])!;
    expect(itemBytes(item)).toBeLessThanOrEqual(8 * 1024);
    expect(Object.keys(item.fields).length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(item.fields).length).toBeLessThanOrEqual(20);
    expect(item.omittedFields).toBe(5000 - Object.keys(item.fields).length);
  });

  it('cuts long field names and values short', async () => {
    const longName = `n${'a'.repeat(5000)}`;
    const answer = await service.call('portala', { apiKey, body: validBody('portala', project, { [longName]: 'x', notes: 'y'.repeat(6000) }) });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toHaveProperty(longName);
    const item = (await storedRejections('acc-b')).find((i) => i.requestId === answer.headers['x-request-id'])!;
    expect(itemBytes(item)).toBeLessThanOrEqual(8 * 1024);
    for (const [name, messages] of Object.entries(item.fields as Record<string, string[]>)) {
      expect(name.length).toBeLessThanOrEqual(64);
      for (const message of messages) expect(message.length).toBeLessThanOrEqual(200);
    }
  });

  it('keeps every field problem of an ordinary refusal as it was answered', async () => {
    const answer = await service.call('portala', { apiKey, body: { name: 'x', mobile_number: '123' } });
    const [listed] = (await service.repository.rejections.listRejections('acc-b')).filter((r) => r.requestId === answer.headers['x-request-id']);
    expect(listed!.fields).toEqual(answer.body.errors);
    expect(listed).not.toHaveProperty('omittedFields');
  });

  it('cuts a huge honeypot value short', async () => {
    const { key } = await service.issueScopedKey({ accountId: 'acc-b', origins: ['https://shop.example'] });
    const answer = await service.call('website', {
      apiKey: key,
      body: validBody('website', project, { company_website: 'z'.repeat(60_000) }),
      headers: { origin: 'https://shop.example' },
    });
    expect(answer.status).toBe(200);
    const item = (await storedRejections('acc-b')).find((i) => i.requestId === answer.headers['x-request-id'])!;
    expect(item.reason).toBe('honeypot');
    expect(itemBytes(item)).toBeLessThan(1024);
  });
});

describe('the rejections of one account', () => {
  it('still lists records written before the shards, in time order with the new ones', async () => {
    const db = createDocumentClient({ client: service.client });
    const at = new Date(Date.now() - 60_000).toISOString();
    await db.send(
      new PutCommand({
        TableName: service.tables.leads,
        Item: { pk: 'REJECTIONS#acc-b', sk: `${at}#old-request`, item_type: 'rejection', at, requestId: 'old-request', endpoint: 'portala', reason: 'project_not_found', message: 'Project not found', fields: { projectID: 'PRJ-0' }, expires_at: 0 },
      }),
    );
    const listed = await service.repository.rejections.listRejections('acc-b');
    expect(listed[0]).toMatchObject({ requestId: 'old-request', fields: { projectID: 'PRJ-0' } });
    expect(listed[0]).not.toHaveProperty('pk');
  });

  it('spread over more than one partition key, and list oldest first, from a given time, across all of them', async () => {
    const floodKey = await service.issueKey('acc-flood');
    const before = new Date().toISOString();
    const requestIds: string[] = [];
    for (let i = 0; i < 24; i++) {
      const answer = await service.call('portala', { apiKey: floodKey, body: { name: `x${i}` } });
      requestIds.push(answer.headers['x-request-id']!);
    }
    const partitions = new Set((await storedRejections('acc-flood')).map((item) => item.pk));
    expect(partitions.size).toBeGreaterThan(1);

    const listed = await service.repository.rejections.listRejections('acc-flood');
    expect(listed.map((r) => r.requestId)).toEqual(requestIds);
    expect(listed.map((r) => r.at)).toEqual([...listed.map((r) => r.at)].sort());

    const since = listed[12]!.at;
    const fromSince = await service.repository.rejections.listRejections('acc-flood', since);
    expect(fromSince.every((r) => r.at >= since)).toBe(true);
    expect(fromSince.map((r) => r.requestId)).toEqual(requestIds.filter((_, i) => listed[i]!.at >= since));
    expect(before <= listed[0]!.at).toBe(true);
  });
});
