import { describe, expect, it } from '@jest/globals';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoDbClient } from '../../shared/dynamodb/client.ts';
import { sendTransaction, type TransactItem } from '../../shared/dynamodb/transactions.ts';

/** A document client whose requests stop after serialization: the wire input of each is kept, nothing is sent. */
const capturingClient = () => {
  const client = createDynamoDbClient({ endpoint: 'http://127.0.0.1:9' });
  const inputs: unknown[] = [];
  client.middlewareStack.add(
    () => async (args) => {
      inputs.push(structuredClone(args.input));
      return { output: { $metadata: {} } as never, response: {} };
    },
    { step: 'build', name: 'captureWireInput' },
  );
  return { db: createDocumentClient({ client }), inputs };
};

const items: TransactItem[] = [
  {
    Put: {
      TableName: 'Leads',
      Item: { pk: 'LEADS#a#P', sk: 'MOBILE#9876543210', lead_id: '01J', blank: '', count: 3, ratio: 0.5, ok: true, none: null, gone: undefined },
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  },
  { Put: { TableName: 'Leads', Item: { pk: 'LEADS#a#P', sk: 'LEAD#01J', fields: { utm: { source: 'google', tags: ['a', 'b'] } }, list: [1, 'two', { three: 3 }] } } },
  {
    Update: {
      TableName: 'Config',
      Key: { pk: 'KEY#1', sk: 'KEY' },
      UpdateExpression: 'SET used = :now, hits = hits + :one',
      ConditionExpression: 'attribute_exists(pk) AND expires_at > :now',
      ExpressionAttributeValues: { ':now': 1_700_000_000, ':one': 1, ':unset': undefined },
    },
  },
  { ConditionCheck: { TableName: 'Config', Key: { pk: 'CONN#1', sk: 'CONN' }, ConditionExpression: 'connected_at = :at', ExpressionAttributeValues: { ':at': '2026-11-27T08:00:00.000Z' } } },
  { Delete: { TableName: 'Leads', Key: { pk: 'PERSON#a#h#1', sk: 'LEAD#01J' } } },
];

describe('a transaction sent as a low-level command', () => {
  it('reaches DynamoDB in the wire shape the document client gives the same items', async () => {
    const { db, inputs } = capturingClient();
    await db.send(new TransactWriteCommand({ TransactItems: structuredClone(items) }));
    await sendTransaction(db, structuredClone(items));
    expect(inputs).toHaveLength(2);
    expect(inputs[1]).toEqual(inputs[0]);
    expect(JSON.stringify(inputs[1])).toBe(JSON.stringify(inputs[0]));
  });

  it('leaves the items it was given as they were', async () => {
    const { db } = capturingClient();
    const given = structuredClone(items);
    await sendTransaction(db, given);
    expect(given).toEqual(items);
  });
});
