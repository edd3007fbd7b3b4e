/**
 * The admin function's wiring, read from its environment once per container: the configuration
 * and key stores (never the lead store: the admin function writes configuration, not leads) and its
 * log line.
 */
import { AccountAdmin } from './domain/account-admin.ts';
import { AccountKeys } from './domain/account-keys.ts';
import { AccountGoogleForms } from './domain/google-forms.ts';
import type { AccountConfigStore, ApiKeyRegistry, GoogleFormRegistry } from './domain/ports.ts';
import { DynamoDbAccountStore } from './dynamodb/accounts.ts';
import { DynamoDbApiKeyStore } from './dynamodb/api-keys.ts';
import { DynamoDbGoogleFormStore } from './dynamodb/google-forms.ts';
import { createDocumentClient } from './dynamodb/client.ts';
import { configTable } from './dynamodb/tables.ts';
import type { AdminRuntime } from './http/admin-handler.ts';
import { logLineSink, type LogSink } from './log.ts';
import { runtimeSettings } from './routes.ts';

export interface AdminStores {
  readonly accounts: AccountConfigStore;
  readonly keys: ApiKeyRegistry;
  readonly googleForms: GoogleFormRegistry;
}

export const adminRuntime = ({ accounts, keys, googleForms }: AdminStores, log: LogSink = logLineSink({ message: 'admin request' })): AdminRuntime => ({
  accounts: new AccountAdmin(accounts),
  keys: new AccountKeys({ keys, accounts }),
  googleForms: new AccountGoogleForms({ forms: googleForms, accounts }),
  log,
});

export const adminRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): AdminRuntime => {
  const endpoint = env[runtimeSettings.dynamodbEndpoint];
  const table = env[configTable.envVar];
  if (!table) throw new Error(`Environment variable ${configTable.envVar} is not set`);
  const db = createDocumentClient(endpoint ? { endpoint } : {});
  return adminRuntime({ accounts: new DynamoDbAccountStore(db, table), keys: new DynamoDbApiKeyStore(db, table), googleForms: new DynamoDbGoogleFormStore(db, table) });
};
