/**
 * Creates the service's tables where they are missing, from the same definitions the CDK stack uses.
 * For DynamoDB Local (the local run and the tests); in AWS the stack owns the tables.
 */
import {
  CreateTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { tables, type TableDefinition } from './tables.ts';

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
        AttributeDefinitions: [
          { AttributeName: definition.partitionKey, AttributeType: 'S' },
          { AttributeName: definition.sortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: definition.partitionKey, KeyType: 'HASH' },
          { AttributeName: definition.sortKey, KeyType: 'RANGE' },
        ],
        ...(definition.streamNewImages && { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }),
      }),
    );
  } catch (error) {
    if (error instanceof ResourceInUseException) return;
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

/** Creates every table of the service under the prefix; returns their names. */
export const createTables = async (client: DynamoDBClient, prefix: string) => {
  const names = localTableNames(prefix);
  const byId: Record<string, string> = { Config: names.config, Leads: names.leads };
  for (const definition of tables) await createTable(client, definition, byId[definition.id]!);
  return names;
};
