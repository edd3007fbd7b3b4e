/**
 * The admin function's wiring, read from its environment once per container: the configuration and key
 * stores, the rejection log and the lead store a release writes to, a person's data in the Leads table
 * (access and erasure), each lead source's own admin operations on the stores it names (its admin
 * module, shared/admin-sources.ts), and its log line.
 */
import { retentionDaySecondsOf } from './retention-settings.ts';
import { AccountAdmin } from './domain/account-admin.ts';
import { AccountKeys } from './domain/account-keys.ts';
import { newLeadId } from './domain/lead-id.ts';
import type { AccountConfigStore, ApiKeyRegistry } from './domain/ports/keys-and-accounts.ts';
import type { LeadStore } from './domain/ports/leads.ts';
import type { PersonDataStore } from './domain/ports/people.ts';
import type { RejectionArchive } from './domain/ports/rejections.ts';
import { DynamoDbLeadStore } from './dynamodb/leads.ts';
import { DynamoDbRejectionArchive } from './dynamodb/rejection-archive.ts';
import { tableNamesFromEnvironment } from './runtime.ts';
import { PersonData, type PersonKeyring } from './domain/person-data.ts';
import { auditRetentionDaysFromEnvironment, type AuditLog } from './domain/audit.ts';
import { DynamoDbAuditLog } from './dynamodb/audit.ts';
import { DynamoDbAccountStore } from './dynamodb/accounts.ts';
import { DynamoDbChannelReader } from './dynamodb/channels.ts';
import { channelRows, type ChannelReader } from './domain/channel-watch.ts';
import type { SilenceSettings } from './domain/source-watch.ts';
import { silenceSettingsFromEnvironment } from './source-watch-settings.ts';
import { DynamoDbApiKeyStore } from './dynamodb/api-keys.ts';
import { createDocumentClient } from './dynamodb/client.ts';
import { DynamoDbPersonData } from './dynamodb/people.ts';
import { containerPersonKeyring } from './person-keyring.ts';
import type { AdminRuntime } from './http/admin-handler.ts';
import { boundOperations, type SourceAdmin } from './http/admin-operation.ts';
import * as sourceAdmins from './admin-sources.ts';
import { logLineSink, type LogSink } from './log.ts';
import { runtimeSettings } from './routes.ts';
import { challengeSecretCipherFromEnvironment } from './captcha/secrets.ts';

interface CoreAdminStores {
  readonly accounts: AccountConfigStore;
  readonly keys: ApiKeyRegistry;
  /** The rejection log, and the lead store a release writes to. */
  readonly rejections: RejectionArchive;
  readonly leads: LeadStore;
  readonly people: PersonDataStore;
  /** The quiet-source watch's counts, for `GET .../sources`. */
  readonly channels: ChannelReader;
  /** The audit of looks at a person's data, and the keyed hash its entries name a person by. */
  readonly audit: AuditLog;
  readonly keyring: PersonKeyring;
}

type SourceAdmins = typeof sourceAdmins;
type StoresOf<Admin> = Admin extends { readonly dependencies: (stores: infer Stores) => unknown } ? Stores : never;
type Intersection<Union> = (Union extends unknown ? (value: Union) => void : never) extends (value: infer Both) => void ? Both : never;

/** The stores of the core operations, and those each source's admin module builds its dependencies from. */
export type AdminStores = CoreAdminStores & Intersection<StoresOf<SourceAdmins[keyof SourceAdmins]>>;

/** Every source's operations, by name, each bound to what its module builds from the stores. */
const sourceOperations = (stores: AdminStores) =>
  Object.assign({}, ...Object.values(sourceAdmins).map((admin) => boundOperations(admin as unknown as SourceAdmin<AdminStores, unknown>, stores))) as AdminRuntime['sources'];

/** The key scopes the sources' admin modules declare: the admin function reads no descriptor (its bundle budget). */
export const adminKeyScopes: readonly string[] = Object.values(sourceAdmins).flatMap((admin: { readonly keyScope?: { readonly name: string } }) => (admin.keyScope ? [admin.keyScope.name] : []));

export const adminRuntime = (
  stores: AdminStores,
  log: LogSink = logLineSink({ message: 'admin request' }),
  silence: SilenceSettings = silenceSettingsFromEnvironment(),
  now: () => Date = () => new Date(),
): AdminRuntime => {
  const { accounts, keys, rejections, leads, people, channels, audit, keyring } = stores;
  const accountAdmin = new AccountAdmin(accounts);
  return {
    accounts: accountAdmin,
    // The cipher is built when a challenge is sealed: creating any other key needs no KMS key.
    keys: new AccountKeys({ keys, accounts, challengeSecrets: { seal: (accountId, secret) => challengeSecretCipherFromEnvironment().seal(accountId, secret) }, keyScopes: adminKeyScopes }),
    quarantine: { rejections, accounts, leads, newLeadId, now: () => new Date() },
    people: new PersonData(accounts, people, retentionDaySecondsOf()),
    audit: { audit, keyring, accounts },
    channels: {
      // The account first: an unknown one answers 404 Account not found, as every account route does.
      list: async (accountId) => channelRows({ store: channels, settings: silence, now }, accountId, (await accountAdmin.getAccount(accountId)).silenceQuietHours),
    },
    sources: sourceOperations(stores),
    log,
  };
};

export const adminRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): AdminRuntime => {
  const endpoint = env[runtimeSettings.dynamodbEndpoint];
  const { config, leads } = tableNamesFromEnvironment(env);
  const db = createDocumentClient(endpoint ? { endpoint } : {});
  const keyring = containerPersonKeyring();
  const core: CoreAdminStores = {
    accounts: new DynamoDbAccountStore(db, config),
    keys: new DynamoDbApiKeyStore(db, config),
    rejections: new DynamoDbRejectionArchive(db, leads, {}, keyring),
    leads: new DynamoDbLeadStore(db, leads, undefined, keyring),
    people: new DynamoDbPersonData(db, leads, keyring),
    channels: new DynamoDbChannelReader(db, leads),
    audit: new DynamoDbAuditLog(db, leads, auditRetentionDaysFromEnvironment(env)),
    keyring,
  };
  const sources = Object.assign({}, ...Object.values(sourceAdmins).map((admin) => admin.stores(db, config))) as Omit<AdminStores, keyof CoreAdminStores>;
  return adminRuntime({ ...core, ...sources } as AdminStores);
};
