/**
 * Section 5's "SDK alone" subject, bundled like the functions: the service's DynamoDB client (its
 * settings, primed at init as the functions prime theirs) making a cold request's three round trips,
 * the key's GetItem and the account's Query (the request path's own readers) and a TransactWriteItems
 * of two items of the bench's own, with nothing of the handler around them. Its cold start against
 * the floor is what Node, the SDK and DynamoDB Local cost any function that does what a lead's cold
 * request does; the lead functions' rows less this one are the service's own.
 */
import { randomUUID } from 'node:crypto';
import { TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { hashApiKey } from '../shared/domain/api-keys.ts';
import { DynamoDbAccountReader } from '../shared/dynamodb/accounts.ts';
import { DynamoDbApiKeyReader } from '../shared/dynamodb/api-keys.ts';
import { createDocumentClient, primeDocumentClient } from '../shared/dynamodb/client.ts';

const db = createDocumentClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
const configTable = process.env.CONFIG_TABLE_NAME!;
const leadsTable = process.env.LEADS_TABLE_NAME!;
const keys = new DynamoDbApiKeyReader(db, configTable);
const accounts = new DynamoDbAccountReader(db, configTable);
await primeDocumentClient(db, leadsTable);

export const handler = async (event: { headers: Record<string, string>; body: string }) => {
  const key = await keys.findApiKey(hashApiKey(event.headers['x-api-key']!));
  const account = await accounts.loadAccount(key!.accountId);
  const lead = JSON.parse(event.body) as { name: string; mobile_number: string };
  const id = randomUUID();
  await db.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        { Put: { TableName: leadsTable, Item: { pk: { S: `BENCH#${id}` }, sk: { S: 'LEAD' }, name: { S: lead.name }, projects: { N: String(account!.projects.size) } }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Put: { TableName: leadsTable, Item: { pk: { S: `BENCH#${lead.mobile_number}#${id}` }, sk: { S: 'CLAIM' } }, ConditionExpression: 'attribute_not_exists(pk)' } },
      ],
    }),
  );
  return { statusCode: 200, body: JSON.stringify({ status: true, id }) };
};
