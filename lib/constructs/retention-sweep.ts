/**
 * Kept only as long as needed (CONTRACT.md section 18): one function (functions/retention-sweep/handler.ts)
 * that a daily EventBridge schedule invokes at `retentionSweepHourUtc`, erasing each account's leads
 * older than its `leadRetentionDays` and its rejection records older than `rejectionRetentionDays`.
 * A lead is erased within 24 hours of its age: the schedule runs daily, and a run that stops for time
 * leaves the rest to the retries and the next day's run. Nothing here is on a lead's request path.
 *
 * Its grants are the erasure's, and only on the partitions it touches: the sweep's list of accounts and
 * their settings (Config), the leads by age (the by_age index), lead items and their claims, person
 * lookup items, idempotency records (tombstones), erasure reasons and rejection records (Leads).
 */
import { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { configTable as configTableDefinition, leadAgeIndex, leadsTable as leadsTableDefinition } from '../../shared/dynamodb/tables.ts';
import { personKeySettings } from '../../shared/person-keyring.ts';
import { LeadFunction } from './lead-function.ts';
import type { Monitoring } from './monitoring.ts';

/** The Config partitions the sweep reads: its list of accounts, and each account's settings. */
export const RETENTION_CONFIG_PARTITIONS = ['RETENTION#*', 'ACCOUNT#*'];

/** The Leads partitions an erasure touches (shared/dynamodb/people.ts), and the by_age index's. */
export const RETENTION_LEAD_PARTITIONS = ['LEADS#*', 'PERSON#*', 'IDEMPOTENCY#*', 'ERASED#*', 'REJECTIONS#*', 'AGE#*'];

/** What the sweep does on the Leads table: reads, and an erasure's transactions (authorised part by part). */
export const retentionSweepTableAccess = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:PutItem'] as const;

/** The function's time per run: the sweep stops well before it and the next run goes on. */
export const RETENTION_SWEEP_TIMEOUT = Duration.minutes(15);

export interface RetentionSweepProps {
  readonly stage: string;
  readonly projectRoot: string;
  readonly entry: string;
  readonly logRetentionDays: number;
  readonly leadsTable: dynamodb.ITable;
  readonly configTable: dynamodb.ITable;
  readonly personKey: secretsmanager.ISecret;
  readonly hourUtc: number;
  readonly monitoring: Monitoring;
}

export class RetentionSweep extends Construct {
  readonly function: lambda.IFunction;
  readonly schedule: events.Rule;
  readonly alarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: RetentionSweepProps) {
    super(scope, id);
    const sweep = new LeadFunction(this, 'Function', {
      entry: props.entry,
      projectRoot: props.projectRoot,
      description: `Lead intake ${props.stage}: daily retention sweep, erases aged-out leads and rejection records`,
      memorySize: 256,
      logRetentionDays: props.logRetentionDays,
      timeout: RETENTION_SWEEP_TIMEOUT,
      environment: {
        [leadsTableDefinition.envVar]: props.leadsTable.tableName,
        [configTableDefinition.envVar]: props.configTable.tableName,
        [personKeySettings.secretArn]: props.personKey.secretArn,
      },
    });
    const fn = sweep.function;
    this.function = fn;

    iam.Grant.addToPrincipal({
      grantee: fn,
      actions: ['dynamodb:Query'],
      resourceArns: [props.configTable.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': RETENTION_CONFIG_PARTITIONS } },
    });
    iam.Grant.addToPrincipal({
      grantee: fn,
      actions: [...retentionSweepTableAccess],
      resourceArns: [props.leadsTable.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': RETENTION_LEAD_PARTITIONS } },
    });
    // The one index by name, and Query alone (Table.grant would add `<table>/index/*`).
    iam.Grant.addToPrincipal({
      grantee: fn,
      actions: ['dynamodb:Query'],
      resourceArns: [`${props.leadsTable.tableArn}/index/${leadAgeIndex.name}`],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['AGE#*'] } },
    });
    // The lookup items' key (GetSecretValue alone): an erasure deletes a lead's lookup items by their keyed hash.
    iam.Grant.addToPrincipal({ grantee: fn, actions: ['secretsmanager:GetSecretValue'], resourceArns: [props.personKey.secretArn] });

    this.schedule = new events.Rule(this, 'Schedule', {
      description: `Daily retention sweep at ${String(props.hourUtc).padStart(2, '0')}:00 UTC: erases each account's aged-out leads and rejection records`,
      schedule: events.Schedule.cron({ minute: '0', hour: String(props.hourUtc) }),
      targets: [new targets.LambdaFunction(fn, { retryAttempts: 2, maxEventAge: Duration.hours(6) })],
    });

    this.alarm = props.monitoring.alarm(
      'RetentionSweepErrors',
      fn.metricErrors({ period: Duration.hours(1), statistic: 'Sum' }),
      0,
      'The retention sweep failed: aged-out leads may be kept past their account\'s retention (see its log; the next run goes on)',
      this,
    );
    props.monitoring.alarm('RetentionSweepThrottles', fn.metricThrottles({ period: Duration.hours(1), statistic: 'Sum' }), 0, 'The retention sweep was throttled (its erasures wait for the next run)', this);
  }
}
