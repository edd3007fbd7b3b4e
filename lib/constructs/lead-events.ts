/**
 * Leads out (CONTRACT.md section 9): every lead stored in the Leads table becomes a `Lead Created` event,
 * carrying the whole lead and its account, on an EventBridge bus; the bus keeps an archive for replays,
 * and, when the operator names the CRM's endpoint, a rule delivers each event there through an API
 * destination. See docs/decisions/0005-lead-created-carries-the-lead.md.
 *
 * The table's stream feeds one EventBridge pipe, filtered to INSERTs of lead items (mobile claims,
 * idempotency keys and rejections are never events; filtered-out records are not billed). The pipe's
 * enrichment function turns the DynamoDB image into the event's detail (the same code `npm start` runs);
 * the pipe puts it on the bus. Nothing here is on the request path: a slow or failing bus, or CRM, never
 * delays or fails a lead sender's request.
 */
import { portalFailingEvent, portalRecoveredEvent } from '../../shared/pulled/wire-names.ts';
import { Duration, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { sourceResumedEvent, sourceSilentEvent } from '../../shared/domain/source-watch.ts';
import { LEAD_ITEM_TYPE, LEAD_PK_PREFIX, LEAD_SK_PREFIX, leadCreatedEvent, leadErasedEvent } from '../../shared/dynamodb/lead-stream.ts';

export { leadCreatedEvent, leadErasedEvent };

/** The stream records the pipe takes: new lead items only. */
export const leadCreatedFilter = { eventName: ['INSERT'], dynamodb: { NewImage: { item_type: { S: [LEAD_ITEM_TYPE] } } } };

/**
 * The stream records the Lead Erased pipe takes (CONTRACT.md section 12): a lead item removed (only an
 * erasure removes one; the record has its keys only), or a lead item modified (only an erasure
 * modifies one; the enrichment passes on those whose `erased_fields` says what went).
 */
export const leadErasedFilters = [
  { eventName: ['REMOVE'], dynamodb: { Keys: { pk: { S: [{ prefix: LEAD_PK_PREFIX }] }, sk: { S: [{ prefix: LEAD_SK_PREFIX }] } } } },
  { eventName: ['MODIFY'], dynamodb: { NewImage: { item_type: { S: [LEAD_ITEM_TYPE] } } } },
];

/** Every event of the bus the archive keeps and the CRM receives: the leads', the quiet-source watch's (section 16) and the portal logins' (section 17). */
export const leadEventTypes = [
  leadCreatedEvent.detailType,
  leadErasedEvent.detailType,
  sourceSilentEvent.detailType,
  sourceResumedEvent.detailType,
  portalFailingEvent.detailType,
  portalRecoveredEvent.detailType,
];

/**
 * What the live CRM delivery takes: the events as they are published, never a replay of the archive.
 * EventBridge adds `replay-name` to each replayed event; replays reach the CRM only through the replay
 * path, which skips erased leads (lib/constructs/lead-replays.ts, CONTRACT.md section 14).
 */
export const liveLeadEvents = {
  source: [leadCreatedEvent.source],
  detailType: leadEventTypes,
  'replay-name': [{ exists: false }],
} as events.EventPattern;

/**
 * What the CRM's endpoint receives: the event's id (to deduplicate redeliveries by, with the lead id),
 * source, type, time and detail, exactly what `npm start` posts with LEAD_EVENTS_WEBHOOK_URL.
 */
export const deliveredEvent = () =>
  events.RuleTargetInput.fromObject({
    id: events.EventField.eventId,
    source: events.EventField.source,
    'detail-type': events.EventField.detailType,
    time: events.EventField.time,
    detail: events.EventField.fromPath('$.detail'),
  });

/**
 * How long a dead-letter queue keeps what failed. The CRM delivery's holds whole `Lead Created` events,
 * which no erasure can reach: docs/reference.md "Backups and erasure" names it (test/cdk/retention.test.ts).
 */
export const DEAD_LETTER_RETENTION = Duration.days(14);

/** The oldest stream record the Lead Created and Lead Erased pipes still publish (then dead-lettered). */
export const STREAM_MAX_RECORD_AGE = Duration.hours(6);

/** API destinations retry 429, 5xx and timeouts; these bound it to the contract's 24 hours. */
export const DELIVERY_MAX_EVENT_AGE = Duration.hours(24);
export const DELIVERY_RETRY_ATTEMPTS = 185;

export interface CrmDelivery {
  readonly url: string;
  /** Name or ARN of the Secrets Manager secret whose value is the authorization header's value. */
  readonly authorizationSecret: string;
  readonly authorizationHeader: string;
  readonly rateLimitPerSecond: number;
}

export interface LeadEventsProps {
  readonly leadsTable: dynamodb.ITable;
  readonly logRetentionDays: number;
  /** The pipe's enrichment function (functions/lead-events/handler.ts). */
  readonly enrichment: lambda.IFunction;
  readonly archiveDays: number;
  /** Delivery to the CRM's HTTPS endpoint; none when the operator has not named one. */
  readonly crm?: CrmDelivery;
}

/** A queue that only ever receives what failed, with the acknowledgment cdk-nag needs for such a queue. */
export const deadLetterQueue = (scope: Construct, id: string, what: string) => {
  const queue = new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: DEAD_LETTER_RETENTION,
  });
  Validations.of(queue.node.defaultChild!).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is itself the dead-letter queue of ${what} (cdk-nag only recognises DLQs of other queues); its messages are kept ${DEAD_LETTER_RETENTION.toDays()} days and its depth raises an alarm.`,
  });
  return queue;
};

export class LeadEvents extends Construct {
  readonly bus: events.EventBus;
  /** Stream batches the pipe could not publish after its retries. */
  readonly deadLetterQueue: sqs.Queue;
  readonly pipes: pipes.CfnPipe[] = [];
  readonly logGroup: logs.LogGroup;
  readonly archive: events.Archive;
  /** Events the CRM's endpoint did not take within 24 hours, when delivery is configured. */
  readonly deliveryDeadLetterQueue?: sqs.Queue;
  readonly deliveryRule?: events.Rule;
  /** The CRM's endpoint, when delivery is configured: the replay path delivers to it too. */
  readonly crmDestination?: events.ApiDestination;

  constructor(scope: Construct, id: string, props: LeadEventsProps) {
    super(scope, id);
    const streamArn = props.leadsTable.tableStreamArn;
    if (!streamArn) {
      throw new Error('LeadEvents needs the Leads table stream (streamNewImages in shared/dynamodb/tables.ts)');
    }

    this.bus = new events.EventBus(this, 'Bus', {
      description: 'Lead intake events: Lead Created, whole leads for the CRM and other subscribers',
    });
    // Every Lead Created event, kept for replays of lost deliveries (npm run admin -- replay-events).
    this.archive = this.bus.archive('Archive', {
      description: 'Lead Created and Lead Erased events, for replaying lost deliveries',
      eventPattern: { source: [leadCreatedEvent.source], detailType: leadEventTypes },
      retention: Duration.days(props.archiveDays),
    });

    // Batches the pipe could not publish after its retries: the record's stream position and the error
    // (not the lead itself), for an operator to replay from the table. The alarm on its depth pages.
    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetterQueue', 'the Lead Created pipe');

    this.logGroup = new logs.LogGroup(this, 'PipeLogs', { retention: props.logRetentionDays as logs.RetentionDays });

    const role = new iam.Role(this, 'PipeRole', {
      assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'Lead Created pipe: read the Leads stream, enrich, put events on the lead bus, dead-letter failures',
    });
    // The stream actions EventBridge Pipes documents for a DynamoDB source, on this stream only...
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [streamArn],
      }),
    );
    // ...but ListStreams has no resource type: IAM checks it against "*" alone, so a grant on the stream
    // never matches (test/iam). On "*", as CDK's own grantTableListStreams does; it only lists names.
    role.addToPolicy(new iam.PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }));
    Validations.of(role.node.findChild('DefaultPolicy').node.defaultChild!).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams has no resource type: IAM authorises it only against "*", so a grant on the stream ARN never applies ' +
        'and the pipe could not list its source. It returns stream names and ARNs only, never a record.',
    });
    // The function itself, not its versions (grantInvoke would add `<arn>:*`).
    role.addToPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [props.enrichment.functionArn] }));
    this.bus.grantPutEventsTo(role);
    this.deadLetterQueue.grant(role, 'sqs:SendMessage');
    this.logGroup.grantWrite(role);

    const pipe = (id: string, description: string, filters: readonly object[], detailType: string) => {
      const created = new pipes.CfnPipe(this, id, {
        description,
        roleArn: role.roleArn,
        source: streamArn,
        sourceParameters: {
          filterCriteria: { filters: filters.map((filter) => ({ pattern: JSON.stringify(filter) })) },
          dynamoDbStreamParameters: {
            // From the oldest record, so leads written before the pipe first starts are published too.
            startingPosition: 'TRIM_HORIZON',
            batchSize: 10, // PutEvents takes up to 10 entries
            maximumBatchingWindowInSeconds: 1,
            maximumRetryAttempts: 10,
            maximumRecordAgeInSeconds: STREAM_MAX_RECORD_AGE.toSeconds(),
            onPartialBatchItemFailure: 'AUTOMATIC_BISECT',
            deadLetterConfig: { arn: this.deadLetterQueue.queueArn },
          },
        },
        enrichment: props.enrichment.functionArn,
        target: this.bus.eventBusArn,
        targetParameters: {
          eventBridgeEventBusParameters: { source: leadCreatedEvent.source, detailType },
        },
        // Errors only, without execution data: the payload is a lead (name, mobile number) and stays out of logs.
        logConfiguration: { level: 'ERROR', cloudwatchLogsLogDestination: { logGroupArn: this.logGroup.logGroupArn } },
      });
      created.node.addDependency(role);
      this.pipes.push(created);
    };
    pipe('LeadCreatedPipe', 'Lead Created events: each lead stored in the Leads table, whole, with its account', [leadCreatedFilter], leadCreatedEvent.detailType);
    // A second reader of the stream (DynamoDB Streams serves two per shard without throttling): a pipe
    // puts every event it makes under one detail type, so each kind of event has its own pipe.
    pipe('LeadErasedPipe', "Lead Erased events: each lead erased at its person's request, or that lost a field, by id only", leadErasedFilters, leadErasedEvent.detailType);

    if (props.crm) {
      const delivery = this.deliverTo(props.crm);
      this.deliveryDeadLetterQueue = delivery.deadLetterQueue;
      this.deliveryRule = delivery.rule;
      this.crmDestination = delivery.destination;
    }
  }

  /** The CRM's endpoint as an API destination, its authorization header from Secrets Manager. */
  private deliverTo(crm: CrmDelivery) {
    const connection = new events.Connection(this, 'CrmConnection', {
      description: 'The CRM endpoint that receives Lead Created events',
      // Resolved by CloudFormation at deploy time: the value is never in the template or the cdk.out.
      authorization: events.Authorization.apiKey(crm.authorizationHeader, SecretValue.secretsManager(crm.authorizationSecret)),
    });
    const destination = new events.ApiDestination(this, 'CrmDestination', {
      description: 'POSTs each Lead Created event to the CRM',
      connection,
      endpoint: crm.url,
      httpMethod: events.HttpMethod.POST,
      rateLimitPerSecond: crm.rateLimitPerSecond,
    });
    const queue = deadLetterQueue(this, 'DeliveryDeadLetterQueue', 'the CRM delivery rule');
    const rule = new events.Rule(this, 'CrmDelivery', {
      description: 'Every Lead Created and Lead Erased event to the CRM endpoint as published (replays go through the replay path)',
      eventBus: this.bus,
      eventPattern: liveLeadEvents,
      targets: [
        new targets.ApiDestination(destination, {
          event: deliveredEvent(),
          retryAttempts: DELIVERY_RETRY_ATTEMPTS,
          maxEventAge: DELIVERY_MAX_EVENT_AGE,
          deadLetterQueue: queue,
        }),
      ],
    });
    return { deadLetterQueue: queue, rule, destination };
  }
}
