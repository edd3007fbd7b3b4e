/**
 * The DynamoDB tables, built from shared/dynamodb/tables.ts (the same definitions the local run creates in
 * DynamoDB Local), and the table access the lead functions get.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { configTable, leadsTable, type TableDefinition } from '../../shared/dynamodb/tables.ts';

/**
 * What a lead function may do, per table. Reading: the API key, the account and its projects, campaigns
 * and sub sources (GetItem, Query). Writing: a new lead is a TransactWriteItems of two conditional Puts (the
 * lead and its mobile claim), a repeated lead a PutItem; IAM authorises each Put of a transaction as
 * `dynamodb:PutItem`. GetItem on Leads serves the rare read-back of a write whose answer was lost (a
 * timeout after DynamoDB applied it), so such a lead is answered 200 rather than 503.
 */
export const leadFunctionTableAccess = {
  config: ['dynamodb:GetItem', 'dynamodb:Query'],
  leads: ['dynamodb:PutItem', 'dynamodb:GetItem'],
} as const;

/**
 * What the admin function may do: read an account's partition and its keys (BatchGetItem lists them),
 * and write configuration and key items (a
 * transaction's parts are authorised as PutItem, UpdateItem and ConditionCheckItem). Nothing on the
 * Leads table: it writes configuration, never leads.
 */
export const adminFunctionTableAccess = {
  // DeleteItem: disconnecting a Google Ads lead form deletes its item and its listing (CONTRACT.md section 10).
  config: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem'],
} as const;

export class LeadTables extends Construct {
  readonly config: dynamodb.Table;
  readonly leads: dynamodb.Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.config = tableFrom(this, configTable);
    this.leads = tableFrom(this, leadsTable);
  }

  /** Environment variables that carry the physical table names to a function. */
  get environment(): Record<string, string> {
    return {
      [configTable.envVar]: this.config.tableName,
      [leadsTable.envVar]: this.leads.tableName,
    };
  }

  /** Exactly the actions of `leadFunctionTableAccess`, on these two tables only (no index, no wildcard). */
  grantLeadIntake(grantee: iam.IGrantable): void {
    this.config.grant(grantee, ...leadFunctionTableAccess.config);
    this.leads.grant(grantee, ...leadFunctionTableAccess.leads);
  }

  /** Exactly the actions of `adminFunctionTableAccess`, on the Config table only. */
  grantAdmin(grantee: iam.IGrantable): void {
    this.config.grant(grantee, ...adminFunctionTableAccess.config);
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
