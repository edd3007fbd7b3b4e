/**
 * Creates the service's tables where they are missing, from the same definitions the CDK stack uses.
 * For DynamoDB Local (the local run and the tests); in AWS the stack owns the tables.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { tables, type IndexDefinition, type TableDefinition } from './tables.ts';

/** Physical table names for a name prefix: `<prefix>Config`, `<prefix>Leads`. */
export const localTableNames = (prefix: string) => ({
  config: `${prefix}Config`,
  leads: `${prefix}Leads`,
});

export const createTable = async (client: DynamoDBClient, definition: TableDefinition, tableName: string): Promise<void> => {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributesOf(definition),
        KeySchema: [
          { AttributeName: definition.partitionKey, KeyType: 'HASH' },
          { AttributeName: definition.sortKey, KeyType: 'RANGE' },
        ],
        ...(definition.indexes?.length && { GlobalSecondaryIndexes: definition.indexes.map(indexOf) }),
        ...(definition.streamNewImages && { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }),
      }),
    );
  } catch (error) {
    if (error instanceof ResourceInUseException) return addMissingIndexes(client, definition, tableName);
    throw error;
  }
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
  if (definition.timeToLiveAttribute) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: definition.timeToLiveAttribute },
      }),
    );
  }
};

const attributesOf = (definition: TableDefinition) => {
  const names = new Set([definition.partitionKey, definition.sortKey, ...(definition.indexes ?? []).flatMap((index) => [index.partitionKey, index.sortKey])]);
  return [...names].map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const }));
};

const indexOf = (index: IndexDefinition) => ({
  IndexName: index.name,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: index.projection === 'keys' ? ('KEYS_ONLY' as const) : ('ALL' as const) },
});

/** A table kept from before an index existed (a local data directory) gets the index added. */
const addMissingIndexes = async (client: DynamoDBClient, definition: TableDefinition, tableName: string): Promise<void> => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of definition.indexes ?? []) {
    if (present.has(index.name)) continue;
    await client.send(
      new UpdateTableCommand({ TableName: tableName, AttributeDefinitions: attributesOf(definition), GlobalSecondaryIndexUpdates: [{ Create: indexOf(index) }] }),
    );
  }
};

/** Creates every table of the service under the prefix; returns their names. */
export const createTables = async (client: DynamoDBClient, prefix: string) => {
  const names = localTableNames(prefix);
  const byId: Record<string, string> = { Config: names.config, Leads: names.leads };
  for (const definition of tables) await createTable(client, definition, byId[definition.id]!);
  return names;
};
