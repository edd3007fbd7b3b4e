/**
 * The DynamoDB tables, built from shared/dynamodb/tables.ts (the same definitions the local run creates in
 * DynamoDB Local), the secret that keys the person lookup items stored in them, and the table access the
 * lead functions get.
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { configTable, leadsTable, type TableDefinition } from '../../shared/dynamodb/tables.ts';
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
  config: ['dynamodb:GetItem', 'dynamodb:Query'],
  leads: ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:BatchWriteItem'],
} as const;

/**
 * What the admin function may do: read an account's partition and its keys (BatchGetItem lists them),
 * and write configuration and key items (a
 * transaction's parts are authorised as PutItem, UpdateItem and ConditionCheckItem). On the Leads
 * table, a person's access and erasure (CONTRACT.md section 12): a Query of their lookup partition, a
 * BatchGetItem of what it names, and per item a transaction that deletes it (or updates a lead that
 * keeps everything but a number), rewrites its idempotency record and counts it in the erasure's
 * journal. It never creates a lead.
 */
export const adminFunctionTableAccess = {
  // DeleteItem: disconnecting a Google Ads lead form deletes its item and its listing (CONTRACT.md section 10).
  config: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem'],
  leads: ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
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

  /** Exactly the actions of `leadFunctionTableAccess`, on these two tables only (no index, no wildcard), and the lookup key. */
  grantLeadIntake(grantee: iam.IGrantable): void {
    this.config.grant(grantee, ...leadFunctionTableAccess.config);
    this.leads.grant(grantee, ...leadFunctionTableAccess.leads);
    this.personKey.grantRead(grantee);
  }

  /** Exactly the actions of `adminFunctionTableAccess`, on these two tables only, and the lookup key. */
  grantAdmin(grantee: iam.IGrantable): void {
    this.config.grant(grantee, ...adminFunctionTableAccess.config);
    this.leads.grant(grantee, ...adminFunctionTableAccess.leads);
    this.personKey.grantRead(grantee);
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
  // A fixed logical id: moving or renaming this construct must never make CloudFormation create an empty
  // replacement table (the old one would be retained, orphaned, and the functions pointed at the new one).
  (table.node.defaultChild as dynamodb.CfnTable).overrideLogicalId(`${definition.id}Table`);
  return table;
}
