/**
 * A source gone quiet, noticed (CONTRACT.md section 16): one function (functions/source-watch/handler.ts)
 * that counts each lead stored, read from the Leads table's stream (a Lambda event source mapping
 * filtered to lead INSERTs, as the Lead Created pipe is), and that an EventBridge schedule runs every
 * `silenceCheckMinutes` for one pass over the channels of every account. `Source Silent` and `Source
 * Resumed` go on the lead bus, so the CRM delivery, the archive and its replays take them like
 * `Lead Created`. Nothing here is on a lead's request path.
 *
 * The stream's third reader (after the Lead Created and Lead Erased pipes): DynamoDB Streams serves two
 * readers per shard without throttling; a third may see GetRecords throttled at busy times, which the
 * poller retries (counts come later, none is lost). Counting in the Lead Created pipe's enrichment
 * instead would make a counting failure hold back the CRM's leads.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { configTable as configTableDefinition, leadsTable as leadsTableDefinition } from '../../shared/dynamodb/tables.ts';
import { LEAD_ITEM_TYPE } from '../../shared/dynamodb/lead-stream.ts';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../shared/metric-names.ts';
import { SILENT_CHANNELS_METRIC, sourceWatchSettings } from '../../shared/source-watch-settings.ts';
import { channelConnectionFields } from '../../shared/sources/registry.ts';
import { deadLetterQueue } from './lead-events.ts';
import { LeadFunction } from './lead-function.ts';
import type { Monitoring } from './monitoring.ts';

/** The partitions of the watch's items (shared/dynamodb/channels.ts): its function touches no other. */
export const CHANNEL_PARTITIONS = ['CHANNELS#*', 'CHANNEL#*'];

/** What the watch's function does on the Leads table, on those partitions only. */
export const sourceWatchTableAccess = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'] as const;

export interface SourceWatchProps {
  readonly stage: string;
  readonly projectRoot: string;
  readonly entry: string;
  readonly logRetentionDays: number;
  readonly leadsTable: dynamodb.ITable;
  /** Where an account's own quiet hours are (its settings item). */
  readonly configTable: dynamodb.ITable;
  readonly bus: events.IEventBus;
  readonly checkMinutes: number;
  readonly minLeads: number;
  readonly minMinutes: number;
  readonly quietHours: string;
  readonly alarm: boolean;
  readonly monitoring: Monitoring;
}

export class SourceWatch extends Construct {
  readonly function: lambda.IFunction;
  readonly schedule: events.Rule;
  readonly eventSourceMapping: lambda.EventSourceMapping;
  readonly alarm?: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: SourceWatchProps) {
    super(scope, id);
    const streamArn = props.leadsTable.tableStreamArn;
    if (!streamArn) throw new Error('SourceWatch needs the Leads table stream (streamNewImages in shared/dynamodb/tables.ts)');

    const watch = new LeadFunction(this, 'Function', {
      entry: props.entry,
      projectRoot: props.projectRoot,
      description: `Lead intake ${props.stage}: quiet-source watch, counts stored leads per channel and sends Source Silent and Source Resumed`,
      memorySize: 256,
      logRetentionDays: props.logRetentionDays,
      // One pass over every account's channels; a lead's count takes milliseconds.
      timeout: Duration.seconds(60),
      environment: {
        [leadsTableDefinition.envVar]: props.leadsTable.tableName,
        [configTableDefinition.envVar]: props.configTable.tableName,
        [sourceWatchSettings.busName]: props.bus.eventBusName,
        [sourceWatchSettings.minLeads]: String(props.minLeads),
        [sourceWatchSettings.minMinutes]: String(props.minMinutes),
        [sourceWatchSettings.quietHours]: props.quietHours,
        [sourceWatchSettings.connectionFields]: JSON.stringify(channelConnectionFields),
      },
    });
    const fn = watch.function;
    this.function = fn;

    iam.Grant.addToPrincipal({
      grantee: fn,
      actions: [...sourceWatchTableAccess],
      resourceArns: [props.leadsTable.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': CHANNEL_PARTITIONS } },
    });
    // An account's quiet hours: its configuration partition, read as the lead path reads it.
    iam.Grant.addToPrincipal({
      grantee: fn,
      actions: ['dynamodb:Query'],
      resourceArns: [props.configTable.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#*'] } },
    });
    props.bus.grantPutEventsTo(fn);

    // The stream, as Lambda's poller reads it with the function's role.
    iam.Grant.addToPrincipal({ grantee: fn, actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], resourceArns: [streamArn] });
    iam.Grant.addToPrincipal({ grantee: fn, actions: ['dynamodb:ListStreams'], resourceArns: ['*'] });
    const policy = watch.function.role!.node.tryFindChild('DefaultPolicy');
    if (policy) {
      Validations.of(policy.node.defaultChild!).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'dynamodb:ListStreams has no resource type: IAM authorises it only against "*", so the stream mapping could not list its source otherwise. ' +
          'It returns stream names and ARNs only, never a record.',
      });
    }

    // Records that failed every retry: their stream position, for an operator (the counts are idempotent: replay them).
    const failed = deadLetterQueue(this, 'DeadLetterQueue', 'the quiet-source watch stream mapping');
    iam.Grant.addToPrincipal({ grantee: fn, actions: ['sqs:SendMessage'], resourceArns: [failed.queueArn] });

    this.eventSourceMapping = new lambda.EventSourceMapping(this, 'LeadStream', {
      target: fn,
      eventSourceArn: streamArn,
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      bisectBatchOnError: true,
      retryAttempts: 10,
      maxRecordAge: Duration.hours(6),
      reportBatchItemFailures: true,
      onFailure: { bind: () => ({ destination: failed.queueArn }) },
      // New lead items only, as the Lead Created pipe takes them: the watch's own items never come back to it.
      filters: [lambda.FilterCriteria.filter({ eventName: lambda.FilterRule.isEqual('INSERT'), dynamodb: { NewImage: { item_type: { S: lambda.FilterRule.isEqual(LEAD_ITEM_TYPE) } } } })],
    });

    this.schedule = new events.Rule(this, 'Schedule', {
      description: `Quiet-source check every ${props.checkMinutes} minute(s): Source Silent for each channel newly silent`,
      schedule: events.Schedule.rate(Duration.minutes(props.checkMinutes)),
      targets: [new targets.LambdaFunction(fn, { retryAttempts: 2, maxEventAge: Duration.minutes(props.checkMinutes) })],
    });

    props.monitoring.alarm('FunctionErrors', fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }), 0, 'The quiet-source watch failed (a batch of leads not counted yet, or a check)', this);
    props.monitoring.alarm('FunctionThrottles', fn.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }), 0, 'The quiet-source watch was throttled (its counts and checks wait)', this);
    props.monitoring.alarm('SourceWatchDeadLetters', failed.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }), 0,
      'Leads the quiet-source watch could not count after every retry (their stream positions are on its dead-letter queue)', this);

    if (props.alarm) {
      // The largest count any account reported in a check: above 0, some channel is silent.
      const silent = new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: SILENT_CHANNELS_METRIC,
        dimensionsMap: { Service: SERVICE_NAME },
        statistic: 'Maximum',
        period: Duration.minutes(Math.max(5, props.checkMinutes)),
      });
      this.alarm = props.monitoring.alarm('SilentChannels', silent, 0, 'A source gone quiet: some account has a silent channel (admin sources --account ID)', this);
    }
  }
}
