/**
 * Replays of the event archive to the CRM, without erased leads (CONTRACT.md section 14: "Erased leads
 * are never delivered again"; docs/decisions/0009-replays-skip-erased-leads.md).
 *
 * The live CRM delivery rule takes no replayed event (lib/constructs/lead-events.ts: EventBridge adds
 * `replay-name` to each). A replay (`npm run admin -- replay-events`) is sent to this construct's rule
 * only, which queues each replayed event in the shape the CRM receives; a pipe takes them off the
 * queue, its enrichment function (functions/lead-replays/handler.ts) keeps only those still to deliver
 * (one GetItem of the lead per Lead Created: an erased lead's item is gone), and the pipe posts each to
 * the same API destination as the live delivery, so the same connection, secret and rate limit apply.
 * A batch the function or the CRM fails goes back to the queue; after 24 hours of receives, to a
 * dead-letter queue whose depth raises an alarm. One event per execution, so each lead is checked
 * just before its own post; and each `Lead Created` passed on leaves a re-check on the same queue,
 * which delivers a `Lead Erased` if an erasure came in between (docs/decisions/0010-nothing-waits-unerased.md).
 */
import { ERASURE_REASON_PK_PREFIX } from '../../shared/dynamodb/erasure-reasons.ts';
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LEAD_PK_PREFIX } from '../../shared/dynamodb/lead-stream.ts';
import { LEAD_REPLAY_QUEUE_URL } from '../../shared/lead-replay-queue.ts';
import { deadLetterQueue, deliveredEvent, leadCreatedEvent, leadErasedEvent, leadEventTypes } from './lead-events.ts';
import type { Monitoring } from './monitoring.ts';

/** What the replay rule takes: replayed events only (the live delivery rule takes the others). */
export const replayedLeadEvents = {
  source: [leadCreatedEvent.source],
  detailType: leadEventTypes,
  'replay-name': [{ exists: true }],
} as events.EventPattern;

/**
 * The live `Lead Erased` events, queued to be delivered again once no `Lead Created` of their lead can
 * still be on its way to the CRM (shared/lead-replays.ts ERASURE_REPEAT_AFTER_HOURS): the live
 * delivery's retries do not keep events in order, so after an outage the CRM could take a lead's
 * `Lead Created` after its `Lead Erased`.
 */
export const liveLeadErasedEvents = {
  source: [leadErasedEvent.source],
  detailType: [leadErasedEvent.detailType],
  'replay-name': [{ exists: false }],
} as events.EventPattern;

/**
 * A queued replayed event is received again after this long when its batch failed, up to
 * REPLAY_MAX_RECEIVES times: 24 hours, the live delivery's bound (CONTRACT.md section 9).
 */
export const REPLAY_RETRY_INTERVAL = Duration.minutes(5);
/** Longer than its messages stay (REPLAY_MAX_RECEIVES receives, then the dead-letter queue): never what ends one. */
export const REPLAY_QUEUE_RETENTION = Duration.days(4);
export const REPLAY_MAX_RECEIVES = 288;

export interface LeadReplaysProps {
  /** The lead bus, where replays of its archive arrive. */
  readonly bus: events.IEventBus;
  /** The CRM endpoint of the live delivery. */
  readonly destination: events.IApiDestination;
  /** Where the filter looks each replayed lead up. */
  readonly leadsTable: dynamodb.ITable;
  /** The pipe's enrichment (functions/lead-replays/handler.ts): gets GetItem on lead items only, and sends re-checks to the queue. */
  readonly filter: lambda.Function;
  /** The pipes' error log (LeadEvents.logGroup). */
  readonly logGroup: logs.ILogGroup;
  readonly monitoring: Monitoring;
}

export class LeadReplays extends Construct {
  readonly rule: events.Rule;
  /** Live Lead Erased events to the queue, held there and delivered again. */
  readonly erasureRepeats: events.Rule;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly pipe: pipes.CfnPipe;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: LeadReplaysProps) {
    super(scope, id);

    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetterQueue', 'the replay queue');
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: REPLAY_RETRY_INTERVAL,
      retentionPeriod: REPLAY_QUEUE_RETENTION,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: REPLAY_MAX_RECEIVES },
    });

    // The same body the live delivery sends, so the filter passes on exactly what the CRM receives.
    this.rule = new events.Rule(this, 'Rule', {
      description: 'Replayed Lead Created and Lead Erased events, to the replay queue (the filter skips erased leads)',
      eventBus: props.bus,
      eventPattern: replayedLeadEvents,
      targets: [new targets.SqsQueue(this.queue, { message: deliveredEvent() })],
    });

    // The body wraps the delivered shape, so the filter tells a repeat to hold from a replay to deliver now.
    this.erasureRepeats = new events.Rule(this, 'ErasureRepeats', {
      description: 'Each live Lead Erased event, to the replay queue, to be delivered to the CRM again once no Lead Created of its lead can still be on its way',
      eventBus: props.bus,
      eventPattern: liveLeadErasedEvents,
      targets: [
        new targets.SqsQueue(this.queue, {
          message: events.RuleTargetInput.fromObject({
            repeat: {
              id: events.EventField.eventId,
              source: events.EventField.source,
              'detail-type': events.EventField.detailType,
              time: events.EventField.time,
              detail: events.EventField.fromPath('$.detail'),
            },
          }),
        }),
      ],
    });

    // GetItem alone, on lead items and erasure reasons alone (LEADS#... and ERASED#..., which hold no
    // person's data beyond the lead's own): never an idempotency record or a person lookup item.
    iam.Grant.addToPrincipal({
      grantee: props.filter,
      actions: ['dynamodb:GetItem'],
      resourceArns: [props.leadsTable.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${LEAD_PK_PREFIX}*`, `${ERASURE_REASON_PK_PREFIX}*`] } },
    });
    // SendMessage alone (grantSendMessages adds GetQueueAttributes and GetQueueUrl, never called): the
    // filter's re-checks, ids only.
    iam.Grant.addToPrincipal({ grantee: props.filter, actions: ['sqs:SendMessage'], resourceArns: [this.queue.queueArn] });
    props.filter.addEnvironment(LEAD_REPLAY_QUEUE_URL, this.queue.queueUrl);

    this.role = new iam.Role(this, 'PipeRole', {
      assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'Replay pipe: take replayed events off the queue, filter out erased leads, post the rest to the CRM',
    });
    // What EventBridge Pipes documents for an SQS source; no ChangeMessageVisibility (it never calls it).
    this.role.addToPolicy(
      new iam.PolicyStatement({ actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'], resources: [this.queue.queueArn] }),
    );
    // The function itself, not its versions (grantInvoke would add `<arn>:*`).
    this.role.addToPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [props.filter.functionArn] }));
    this.role.addToPolicy(new iam.PolicyStatement({ actions: ['events:InvokeApiDestination'], resources: [props.destination.apiDestinationArn] }));
    props.logGroup.grantWrite(this.role);

    this.pipe = new pipes.CfnPipe(this, 'Pipe', {
      description: 'Replayed lead events to the CRM, without the Lead Created events of leads erased since',
      roleArn: this.role.roleArn,
      source: this.queue.queueArn,
      // One event per execution: its lead is checked right before its own post, not before nine others'.
      sourceParameters: { sqsQueueParameters: { batchSize: 1 } },
      enrichment: props.filter.functionArn,
      // The API destination takes one event per call: the pipe posts each event the filter returns, as is.
      target: props.destination.apiDestinationArn,
      // Errors only, without execution data: the payload is a lead (name, mobile number) and stays out of logs.
      logConfiguration: { level: 'ERROR', cloudwatchLogsLogDestination: { logGroupArn: props.logGroup.logGroupArn } },
    });
    this.pipe.node.addDependency(this.role);

    const period = Duration.minutes(5);
    props.monitoring.alarm(
      'PipeFailures',
      new cloudwatch.Metric({ namespace: 'AWS/EventBridge/Pipes', metricName: 'ExecutionFailed', dimensionsMap: { PipeName: this.pipe.ref }, period, statistic: 'Sum' }),
      0,
      'The replay pipe could not filter or deliver replayed events to the CRM; they are retried from the replay queue for 24 hours.',
      this,
    );
    props.monitoring.alarm(
      'DeadLetters',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      0,
      'Replayed events the CRM did not take within 24 hours are in the replay dead-letter queue: fix the endpoint, then replay that period again (npm run admin -- replay-events).',
      this,
    );
  }
}
