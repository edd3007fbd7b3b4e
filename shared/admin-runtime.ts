/**
 * The admin function's wiring, read from its environment once per container: the configuration, key,
 * Google form and call number stores, the rejection log and the lead store a release writes to, a person's data in
 * the Leads table (access and erasure), and its log line.
 */
import { AccountAdmin } from './domain/account-admin.ts';
import { AccountKeys } from './domain/account-keys.ts';
import { newLeadId } from './domain/lead-id.ts';
import type { AccountConfigStore, ApiKeyRegistry, ConnectionRegistry, LeadStore, PersonDataStore, RejectionArchive } from './domain/ports.ts';
import { DynamoDbLeadStore } from './dynamodb/leads.ts';
import { DynamoDbRejectionArchive } from './dynamodb/rejection-archive.ts';
import { tableNamesFromEnvironment } from './runtime.ts';
import { AccountGoogleForms, GOOGLE_FORM_CONNECTION } from './domain/google-forms.ts';
import { AccountCallNumbers, type CallNumberRegistry } from './domain/call-numbers.ts';
import { DynamoDbCallNumberStore } from './dynamodb/call-numbers.ts';
import { PersonData } from './domain/person-data.ts';
import { DynamoDbAccountStore } from './dynamodb/accounts.ts';
import { DynamoDbApiKeyStore } from './dynamodb/api-keys.ts';
import { DynamoDbConnectionStore } from './dynamodb/connections.ts';
import { createDocumentClient } from './dynamodb/client.ts';
import { DynamoDbPersonData } from './dynamodb/people.ts';
import { containerPersonKeyring } from './person-keyring.ts';
import type { AdminRuntime } from './http/admin-handler.ts';
import { logLineSink, type LogSink } from './log.ts';
import { runtimeSettings } from './routes.ts';
import { challengeSecretCipherFromEnvironment } from './captcha/secrets.ts';
import { adminKeyScopes } from './sources/key-scopes.ts';

export interface AdminStores {
  readonly accounts: AccountConfigStore;
  readonly keys: ApiKeyRegistry;
  /** The rejection log, and the lead store a release writes to. */
  readonly rejections: RejectionArchive;
  readonly leads: LeadStore;
  readonly people: PersonDataStore;
  readonly googleForms: ConnectionRegistry;
  readonly callNumbers: CallNumberRegistry;
}

export const adminRuntime = ({ accounts, keys, rejections, leads, people, googleForms, callNumbers }: AdminStores, log: LogSink = logLineSink({ message: 'admin request' })): AdminRuntime => ({
  accounts: new AccountAdmin(accounts),
  // The cipher is built when a challenge is sealed: creating any other key needs no KMS key.
  keys: new AccountKeys({ keys, accounts, challengeSecrets: { seal: (accountId, secret) => challengeSecretCipherFromEnvironment().seal(accountId, secret) }, keyScopes: adminKeyScopes }),
  quarantine: { rejections, accounts, leads, newLeadId, now: () => new Date() },
  people: new PersonData(accounts, people),
  googleForms: new AccountGoogleForms({ forms: googleForms, accounts }),
  callNumbers: new AccountCallNumbers({ numbers: callNumbers, accounts }),
  log,
});

export const adminRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): AdminRuntime => {
  const endpoint = env[runtimeSettings.dynamodbEndpoint];
  const { config, leads } = tableNamesFromEnvironment(env);
  const db = createDocumentClient(endpoint ? { endpoint } : {});
  const keyring = containerPersonKeyring();
  return adminRuntime({
    accounts: new DynamoDbAccountStore(db, config),
    keys: new DynamoDbApiKeyStore(db, config),
    rejections: new DynamoDbRejectionArchive(db, leads, {}, keyring),
    leads: new DynamoDbLeadStore(db, leads, undefined, keyring),
    people: new DynamoDbPersonData(db, leads, keyring),
    googleForms: new DynamoDbConnectionStore(db, config, GOOGLE_FORM_CONNECTION),
    callNumbers: new DynamoDbCallNumberStore(db, config),
  });
};
