/**
 * The admin function's wiring, read from its environment once per container: the configuration
 * store (never the lead store: the admin function writes configuration, not leads) and its log line.
 */
import { AccountAdmin } from './domain/account-admin.ts';
import { DynamoDbAccountStore } from './dynamodb/accounts.ts';
import { createDocumentClient } from './dynamodb/client.ts';
import type { AdminRuntime } from './http/admin-handler.ts';
import { runtimeSettings } from './routes.ts';
import { configTable } from './dynamodb/tables.ts';
import { telemetrySink } from './telemetry.ts';

export const adminRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): AdminRuntime => {
  const endpoint = env[runtimeSettings.dynamodbEndpoint];
  const table = env[configTable.envVar];
  if (!table) throw new Error(`Environment variable ${configTable.envVar} is not set`);
  const db = createDocumentClient(endpoint ? { endpoint } : {});
  return {
    accounts: new AccountAdmin(new DynamoDbAccountStore(db, table)),
    log: telemetrySink({ countLeads: false }),
  };
};
