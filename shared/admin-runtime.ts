/**
 * The admin function's wiring, read from its environment once per container: the configuration
 * and key stores (never the lead store: the admin function writes configuration, not leads) and its
 * log line.
 */
import { AccountAdmin } from './domain/account-admin.ts';
import { AccountKeys } from './domain/account-keys.ts';
import { newLeadId } from './domain/lead-id.ts';
import type { AccountConfigStore, ApiKeyRegistry, LeadStore, RejectionArchive } from './domain/ports.ts';
import { DynamoDbLeadStore } from './dynamodb/leads.ts';
import { DynamoDbRejectionArchive } from './dynamodb/rejection-archive.ts';
import { tableNamesFromEnvironment } from './runtime.ts';
import { DynamoDbAccountStore } from './dynamodb/accounts.ts';
import { DynamoDbApiKeyStore } from './dynamodb/api-keys.ts';
import { createDocumentClient } from './dynamodb/client.ts';
import type { AdminRuntime } from './http/admin-handler.ts';
import { logLineSink, type LogSink } from './log.ts';
import { runtimeSettings } from './routes.ts';

export interface AdminStores {
  readonly accounts: AccountConfigStore;
  readonly keys: ApiKeyRegistry;
  /** The rejection log, and the lead store a release writes to. */
  readonly rejections: RejectionArchive;
  readonly leads: LeadStore;
}

export const adminRuntime = ({ accounts, keys, rejections, leads }: AdminStores, log: LogSink = logLineSink({ message: 'admin request' })): AdminRuntime => ({
  accounts: new AccountAdmin(accounts),
  keys: new AccountKeys({ keys, accounts }),
  quarantine: { rejections, accounts, leads, newLeadId, now: () => new Date() },
  log,
});

export const adminRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): AdminRuntime => {
  const endpoint = env[runtimeSettings.dynamodbEndpoint];
  const { config, leads } = tableNamesFromEnvironment(env);
  const db = createDocumentClient(endpoint ? { endpoint } : {});
  return adminRuntime({
    accounts: new DynamoDbAccountStore(db, config),
    keys: new DynamoDbApiKeyStore(db, config),
    rejections: new DynamoDbRejectionArchive(db, leads),
    leads: new DynamoDbLeadStore(db, leads),
  });
};
