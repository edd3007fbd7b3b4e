/**
 * The stores of the service, one module per aggregate (docs/data-model.md):
 *   api-keys.ts    API keys                                   Config table
 *   accounts.ts    accounts, projects, campaigns, sub sources Config table
 *   leads.ts       leads, mobile claims, idempotency keys     Leads table
 *   lead-archive.ts leads as the admin side reads them        Leads table
 *   rejections.ts  refused requests kept for their account    Leads table
 *   people.ts      a person's lookup items, access and erasure Leads table
 *   connections.ts what deliveries name (Google Ads forms, call numbers), per kind  Config table
 * Each module has the request path's class (all that the Lambda bundles carry) and an admin class
 * that extends it with what the admin CLI, the seed and the tests need; the leads' admin reads are a
 * class and a module of their own (lead-archive.ts), sharing nothing with the request path's writes.
 */
import { DynamoDbAuditLog } from './audit.ts';
import { DynamoDbChannelStore } from './channels.ts';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbAccountReader, DynamoDbAccountStore } from './accounts.ts';
import { DynamoDbApiKeyReader, DynamoDbApiKeyStore } from './api-keys.ts';
import { DynamoDbConnectionStore } from './connections.ts';
import { connectionGuardItem, type ConnectionGuardItem } from './connection-items.ts';
import type { ClaimWrites } from './delivery-claims.ts';
import { DynamoDbPersonData } from './people.ts';
import type { PersonKeyring } from '../domain/person-data.ts';
import type { ConnectionKeyDeclaration } from '../sources/connection-kind.ts';
import { containerPersonKeyring } from '../person-keyring.ts';
import { DynamoDbLeadArchive } from './lead-archive.ts';
import { DynamoDbLeadStore, type TransactionRetryPolicy } from './leads.ts';
import { DynamoDbRejectionArchive } from './rejection-archive.ts';
import { DynamoDbRejectionLog, type RejectionLogOptions } from './rejections.ts';

export type { TransactionRetryPolicy } from './leads.ts';

export interface TableNames {
  readonly config: string;
  readonly leads: string;
}

/** What a lead request reads and writes. */
export interface RequestPathStores {
  readonly keys: DynamoDbApiKeyReader;
  readonly accounts: DynamoDbAccountReader;
  readonly leads: DynamoDbLeadStore;
  readonly rejections: DynamoDbRejectionLog;
}

/**
 * `guardItem`: given by the functions whose deliveries name a connection (connectionGuardItem on the
 * Config table, shared/webhook-runtime.ts), whose writes carry its guard; the API key endpoints' carry none.
 */
export const requestPathStores = (
  db: DynamoDBDocumentClient,
  tables: TableNames,
  retry?: TransactionRetryPolicy,
  rejectionLog?: RejectionLogOptions,
  guardItem?: ConnectionGuardItem,
  /** Given by a function whose deliveries carry claims (WhatsApp's): how its writes take them. */
  claims?: ClaimWrites,
): RequestPathStores => ({
  keys: new DynamoDbApiKeyReader(db, tables.config),
  accounts: new DynamoDbAccountReader(db, tables.config),
  leads: new DynamoDbLeadStore(db, tables.leads, retry, undefined, guardItem, claims),
  rejections: new DynamoDbRejectionLog(db, tables.leads, rejectionLog, undefined, guardItem, claims),
});

/** Every store with its admin operations: the admin CLI, the seed, the bench and the tests. */
export class DynamoDbRepository implements RequestPathStores {
  readonly keys: DynamoDbApiKeyStore;
  readonly accounts: DynamoDbAccountStore;
  readonly leads: DynamoDbLeadStore;
  /** The leads as the admin CLI lists them and the integrity check reads them: a module apart from the request path's writes. */
  readonly leadArchive: DynamoDbLeadArchive;
  readonly rejections: DynamoDbRejectionArchive;
  /** The client and tables, for a source's own stores kept in its folder (Meta's pages: shared/meta/page-store.ts). */
  readonly db: DynamoDBDocumentClient;
  readonly tables: TableNames;
  readonly people: DynamoDbPersonData;
  /** The quiet-source watch's counts (CONTRACT.md section 16). */
  readonly channels: DynamoDbChannelStore;
  /** Every look at a person's data (CONTRACT.md section 18), kept the stack's shortest audit retention unless told. */
  readonly audit: DynamoDbAuditLog;
  /** The person lookup key its stores hash with; the audit names a person by the same keyed hash. */
  readonly keyring: PersonKeyring;
  /** The connection store of one declared kind (shared/sources/connection-kind.ts); a property, so a spread of the repository keeps it. */
  readonly connections: (kind: ConnectionKeyDeclaration) => DynamoDbConnectionStore;

  /** `keyring`: the person lookup key; the container's (shared/person-keyring.ts) unless the caller reads it another way (the admin CLI against AWS). */
  constructor(db: DynamoDBDocumentClient, tables: TableNames, retry?: TransactionRetryPolicy, rejectionLog?: RejectionLogOptions, keyring: PersonKeyring = containerPersonKeyring()) {
    this.keys = new DynamoDbApiKeyStore(db, tables.config);
    this.accounts = new DynamoDbAccountStore(db, tables.config);
    const guardItem = connectionGuardItem(tables.config);
    this.leads = new DynamoDbLeadStore(db, tables.leads, retry, keyring, guardItem);
    this.leadArchive = new DynamoDbLeadArchive(db, tables.leads);
    this.rejections = new DynamoDbRejectionArchive(db, tables.leads, rejectionLog, keyring, guardItem);
    this.db = db;
    this.tables = tables;
    this.people = new DynamoDbPersonData(db, tables.leads, keyring);
    this.channels = new DynamoDbChannelStore(db, tables.leads);
    this.audit = new DynamoDbAuditLog(db, tables.leads);
    this.keyring = keyring;
    this.connections = (kind) => new DynamoDbConnectionStore(db, tables.config, kind);
  }
}
