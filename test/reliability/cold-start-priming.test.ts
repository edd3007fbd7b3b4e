import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, primeDocumentClient } from '../../shared/dynamodb/client.ts';
import { startFaultRelay, type FaultRelay } from '../support/fault-relay.ts';
import { testService, type TestService } from '../support/service.ts';

/**
 * Issue 20: a lead function primes its DynamoDB client at init (shared/runtime.ts), so the first lead
 * does not pay for the SDK's lazy code. Priming must cost no round trip: a container may be frozen
 * before it serves anything, and every request to DynamoDB is billed.
 */
let relay: FaultRelay;
let service: TestService;

beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
  service = await testService();
});
afterAll(async () => {
  await relay.close();
});

describe('priming the container client at init', () => {
  it('sends no request to DynamoDB', async () => {
    const client = createDocumentClient({ endpoint: relay.endpoint });
    relay.clearSeen();
    await primeDocumentClient(client, service.tables.leads);
    expect(relay.seen()).toEqual([]);
  });

  it('leaves the client answering the first real request, with one round trip for it', async () => {
    const client = createDocumentClient({ endpoint: relay.endpoint });
    await primeDocumentClient(client, service.tables.leads);
    relay.clearSeen();
    const answer = await client.send(new GetCommand({ TableName: service.tables.config, Key: { pk: 'KEY#none', sk: 'KEY#none' } }));
    expect(answer.Item).toBeUndefined();
    expect(relay.seen().map((request) => request.operation)).toEqual(['GetItem']);
  });
});
