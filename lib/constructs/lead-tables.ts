/**
 * The DynamoDB tables, built from shared/dynamodb/tables.ts (the same definitions the local run creates in
 * DynamoDB Local), the secret that keys the person lookup items stored in them, and the table access the
 * lead functions get.
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { ConnectionKeyDeclaration } from '../../shared/sources/connection-kind.ts';
import { KEY_RATE_PREFIX } from '../../shared/dynamodb/request-rates.ts';
import { configTable, leadsTable, rejectionReasonIndex, type TableDefinition } from '../../shared/dynamodb/tables.ts';
import { personKeySettings } from '../../shared/person-keyring.ts';

/**
 * What a lead function may do, per table. Reading: the API key, the account and its projects, campaigns
 * and sub sources (GetItem, Query). Writing: a new lead is a TransactWriteItems of Puts (the lead, its
 * mobile claim and its person lookup items), a repeated lead one of the lead and its lookup items; IAM
 * authorises each Put of a transaction as `dynamodb:PutItem`. A rejection record naming a person is one
 * BatchWriteItem with its lookup items. GetItem on Leads serves the rare read-back of a write whose answer was lost (a
 * timeout after DynamoDB applied it), so such a lead is answered 200 rather than 503.
 */
export const leadFunctionTableAccess = {
  config: ['dynamodb:Query'],
  // The sender's credential, looked up by its hash: an API key's item, or a Google form's (not the
  // Meta worker's: Meta's notifications are signed, and a page is found by Query).
  keyLookups: ['dynamodb:GetItem'],
  leads: ['dynamodb:PutItem', 'dynamodb:GetItem'],
  // A repeat or a rejection record written with its person lookup items (shared/dynamodb/people.ts):
  // every lead function but the Google Ads webhook, whose writes are transactions with its form's check.
  batchWrites: ['dynamodb:BatchWriteItem'],
  // A browser key's rejection records are counted per minute, and those past the bound add to one
  // counter item (shared/dynamodb/rejections.ts): the browser-facing website function alone.
  rejectionCounter: ['dynamodb:UpdateItem'],
  // Every lead function: a repeat settled after an erasure took its original, and a keyed or guarded
  // repeat's check of its original's claim inside its transaction (only in the partitions below).
  repeatSettling: ['dynamodb:ConditionCheckItem', 'dynamodb:UpdateItem'],
  // The call webhook: a calls key's requests counted per minute (shared/dynamodb/request-rates.ts), only in its counters' partitions.
  keyRequestCounter: ['dynamodb:UpdateItem'],
} as const;

/** The Leads partitions a repeat's settling checks and updates: its lead's and its claim's (LEADS#) and its key's record (IDEMPOTENCY#). */
const REPEAT_SETTLING_PARTITIONS = ['LEADS#*', 'IDEMPOTENCY#*'];

/** The Leads partitions of the per-key request counters (shared/dynamodb/request-rates.ts KEY_RATE_PREFIX). */
const KEY_REQUEST_COUNTER_PARTITIONS = [`${KEY_RATE_PREFIX}#*`];

/** What a lead function writes beyond a lead and its read-back (see `leadFunctionTableAccess`). */
export interface LeadIntakeAccess {
  /** GetItem on Config: an API key's or a Google form's item. */
  readonly keyLookups: boolean;
  /** BatchWriteItem on Leads: repeats and rejection records with their lookup items. */
  readonly batchWrites: boolean;
  /** UpdateItem on Leads: the per-key counter of a browser key's rejection records. */
  readonly rejectionCounter: boolean;
  /** UpdateItem on Leads, on the per-key request counters alone: a scoped key's requests per minute. */
  readonly keyRequestCounter?: boolean;
}

/**
 * What the admin function may do: read an account's partition and its keys (BatchGetItem lists them),
 * and write configuration and key items (a
 * transaction's parts are authorised as PutItem, UpdateItem and ConditionCheckItem). On the Leads
 * table: page the rejection log (Query, on the table and its by_reason index), read one record
 * (GetItem), and release a quarantined submission: the lead, its claim and its release marker are
 * Puts of one transaction, then the record is marked (UpdateItem). And a person's access and erasure
 * (CONTRACT.md section 12): a Query of their lookup partition, a BatchGetItem of what it names, and per
 * item a transaction that deletes it (or updates a lead that keeps everything but a number), rewrites
 * its idempotency record and counts it in the erasure's journal.
 */
export const adminFunctionTableAccess = {
  // DeleteItem: disconnecting a Google Ads lead form deletes its item and its listing (CONTRACT.md section 10).
  config: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem'],
  // ConditionCheckItem: a released submission that repeats a lead checks the original's claim in its transaction.
  leads: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
} as const;

export class LeadTables extends Construct {
  readonly config: dynamodb.Table;
  readonly leads: dynamodb.Table;
  /**
   * The HMAC key of the person lookup items (shared/domain/person-data.ts): whoever writes a lead or a
   * rejection record, or finds or erases a person, hashes with it. Generated once and never rotated:
   * lookup items keyed under an older secret would no longer be found. Retained with the tables.
   */
  readonly personKey: secretsmanager.Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.config = tableFrom(this, configTable);
    this.leads = tableFrom(this, leadsTable);
    this.personKey = new secretsmanager.Secret(this, 'PersonKey', {
      description: 'Lead intake: HMAC-SHA256 key of the person lookup items in the Leads table (never rotate: lookups would be lost)',
      generateSecretString: { excludePunctuation: true, passwordLength: 64 },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.personKey.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The key of the person lookup items stored in the Leads table: a rotated key would leave every stored lookup unreachable, so ' +
        'access and erasure requests would miss people. It is read only by the functions that write or erase leads.',
    });
  }

  /** Environment variables that carry the physical table names, and the lookup key's ARN, to a function. */
  get environment(): Record<string, string> {
    return {
      [configTable.envVar]: this.config.tableName,
      [leadsTable.envVar]: this.leads.tableName,
      [personKeySettings.secretArn]: this.personKey.secretArn,
    };
  }

  /** Exactly the actions of `leadFunctionTableAccess` the function needs, on these two tables only (no index, no wildcard), and the lookup key. */
  grantLeadIntake(grantee: iam.IGrantable, access: LeadIntakeAccess): void {
    this.config.grant(grantee, ...(access.keyLookups ? leadFunctionTableAccess.keyLookups : []), ...leadFunctionTableAccess.config);
    const leads = [
      ...leadFunctionTableAccess.leads,
      ...(access.batchWrites ? leadFunctionTableAccess.batchWrites : []),
      ...(access.rejectionCounter ? leadFunctionTableAccess.rejectionCounter : []),
    ];
    // Not Table.grant: with an index on the table it adds `<table>/index/*`, which the request path never reads.
    iam.Grant.addToPrincipal({ grantee, actions: leads, resourceArns: [this.leads.tableArn] });
    // A repeat whose original was erased while it was being stored becomes the original (erasure is final,
    // shared/dynamodb/leads.ts): its lead item and its key's idempotency record are updated, and nothing else.
    iam.Grant.addToPrincipal({
      grantee,
      actions: [...leadFunctionTableAccess.repeatSettling],
      resourceArns: [this.leads.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': REPEAT_SETTLING_PARTITIONS } },
    });
    if (access.keyRequestCounter) {
      iam.Grant.addToPrincipal({
        grantee,
        actions: [...leadFunctionTableAccess.keyRequestCounter],
        resourceArns: [this.leads.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': KEY_REQUEST_COUNTER_PARTITIONS } },
      });
    }
    this.grantPersonKey(grantee);
  }

  /** GetSecretValue only (Secret.grantRead adds DescribeSecret, which nothing calls). */
  grantPersonKey(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({ grantee, actions: ['secretsmanager:GetSecretValue'], resourceArns: [this.personKey.secretArn] });
  }

  /**
   * A connection guard (shared/dynamodb/connections.ts), for a source whose deliveries name a connection
   * (Google's forms, call numbers): each lead or rejection record it writes carries a ConditionCheck of its
   * connection's item, so ConditionCheckItem on the Config table, and only on items whose partition key
   * is one of that kind's (IAM authorises a transaction's check on its own).
   */
  grantConnectionGuard(grantee: iam.IGrantable, kind: Pick<ConnectionKeyDeclaration, 'shape'>): void {
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:ConditionCheckItem'],
      resourceArns: [this.config.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${kind.shape.partitionPrefix}*`] } },
    });
  }

  /**
   * The read of a delivery's connection (one GetItem of its item), for a source that looks up no key:
   * only on items whose partition key is one of that kind's, so it reads no key, account's connection
   * of another kind, or page token.
   */
  grantConnectionReads(grantee: iam.IGrantable, kind: ConnectionKeyDeclaration): void {
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:GetItem'],
      resourceArns: [this.config.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${kind.shape.partitionPrefix}*`] } },
    });
  }

  /** Exactly the actions of `adminFunctionTableAccess`, on each table (and, for Query, the Leads table's index), and the lookup key. */
  grantAdmin(grantee: iam.IGrantable): void {
    this.config.grant(grantee, ...adminFunctionTableAccess.config);
    iam.Grant.addToPrincipal({ grantee, actions: [...adminFunctionTableAccess.leads], resourceArns: [this.leads.tableArn] });
    // The one index by name (Table.grant would add `<table>/index/*`), and Query alone: an index serves nothing else.
    iam.Grant.addToPrincipal({ grantee, actions: ['dynamodb:Query'], resourceArns: [`${this.leads.tableArn}/index/${rejectionReasonIndex.name}`] });
    this.grantPersonKey(grantee);
  }
}

function tableFrom(scope: Construct, definition: TableDefinition): dynamodb.Table {
  const table = new dynamodb.Table(scope, definition.id, {
    partitionKey: { name: definition.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: definition.sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
    encryption: dynamodb.TableEncryption.AWS_MANAGED,
    timeToLiveAttribute: definition.timeToLiveAttribute,
    stream: definition.streamNewImages ? dynamodb.StreamViewType.NEW_IMAGE : undefined,
  });
  for (const index of definition.indexes ?? []) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: index.projection === 'keys' ? dynamodb.ProjectionType.KEYS_ONLY : dynamodb.ProjectionType.ALL,
    });
  }
  // A fixed logical id: moving or renaming this construct must never make CloudFormation create an empty
  // replacement table (the old one would be retained, orphaned, and the functions pointed at the new one).
  (table.node.defaultChild as dynamodb.CfnTable).overrideLogicalId(`${definition.id}Table`);
  return table;
}
