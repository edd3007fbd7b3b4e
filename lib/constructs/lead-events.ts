/**
 * Downstream integration: every lead stored in the Leads table becomes a `Lead Created` event on an
 * EventBridge bus the CRM's assignment engine subscribes to. The leads table's stream feeds EventBridge
 * Pipes, filtered to INSERTs of lead items (the mobile claims written beside them are not events), whose
 * input template turns the DynamoDB image into the event's detail. Nothing here is on the request path: a
 * slow or failing bus never delays or fails a lead sender's request.
 *
 * Two pipes, one per shape of `parent_lead_id` (a string on merged repeats, NULL otherwise), so each input
 * template is exact: a template cannot turn a DynamoDB `{"NULL": true}` into JSON null. Their filters are
 * complementary, so each lead is published once. Two pipes are also the most readers a DynamoDB stream
 * shard should have: new consumers subscribe to the bus, not to the stream.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** What subscribers match on: `{ "source": ["crm.lead-intake"], "detail-type": ["Lead Created"] }`. */
export const leadCreatedEvent = {
  source: 'crm.lead-intake',
  detailType: 'Lead Created',
} as const;

const image = '$.dynamodb.NewImage';

/** The event's detail; string values quoted, the boolean not. `parent_lead_id` is set per pipe. */
function detailTemplate(parentLeadId: string): string {
  return [
    '{',
    `"account_id": "<${image}.account_id.S>",`,
    `"lead_id": "<${image}.id.S>",`,
    `"projectID": "<${image}.projectID.S>",`,
    `"campaignID": "<${image}.campaignID.S>",`,
    `"source": "<${image}.source.S>",`,
    `"is_repeated": <${image}.is_repeated.BOOL>,`,
    `"parent_lead_id": ${parentLeadId},`,
    `"created_at": "<${image}.created_at.S>"`,
    '}',
  ].join(' ');
}

/** The two pipes: same filter on the item type, complementary filters on `parent_lead_id`. */
export const leadCreatedPipes = [
  {
    id: 'LeadCreatedPipe',
    description: 'Lead Created events for leads without a parent (originals, and repeats under "create")',
    parentLeadIdFilter: { S: [{ exists: false }] },
    inputTemplate: detailTemplate('null'),
  },
  {
    id: 'MergedLeadCreatedPipe',
    description: 'Lead Created events for repeated leads linked to their parent (duplicate setting "merge")',
    parentLeadIdFilter: { S: [{ exists: true }] },
    inputTemplate: detailTemplate(`"<${image}.parent_lead_id.S>"`),
  },
] as const;

export interface LeadEventsProps {
  readonly leadsTable: dynamodb.ITable;
  readonly logRetentionDays: number;
}

export class LeadEvents extends Construct {
  readonly bus: events.EventBus;
  readonly deadLetterQueue: sqs.Queue;
  readonly pipes: pipes.CfnPipe[] = [];
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: LeadEventsProps) {
    super(scope, id);
    const streamArn = props.leadsTable.tableStreamArn;
    if (!streamArn) {
      throw new Error('LeadEvents needs the Leads table stream (streamNewImages in shared/dynamodb/tables.ts)');
    }

    this.bus = new events.EventBus(this, 'Bus', {
      description: 'Lead intake events: Lead Created, for the CRM assignment engine and other subscribers',
    });

    // Batches the pipes could not deliver after their retries: the record's stream position and the error
    // (not the lead itself), for an operator to replay from the table. The alarm on its depth pages.
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter queue of the Lead Created pipes (cdk-nag only recognises DLQs of ' +
        'other queues); its messages are kept 14 days and its depth raises an alarm.',
    });

    this.logGroup = new logs.LogGroup(this, 'PipeLogs', { retention: props.logRetentionDays as logs.RetentionDays });

    const role = new iam.Role(this, 'PipeRole', {
      assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'Lead Created pipes: read the Leads stream, put events on the lead bus, dead-letter failures',
    });
    // The stream actions EventBridge Pipes documents for a DynamoDB source, on this stream only (the table's
    // grantStreamRead would add dynamodb:ListStreams on "*").
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        resources: [streamArn],
      }),
    );
    this.bus.grantPutEventsTo(role);
    this.deadLetterQueue.grant(role, 'sqs:SendMessage');
    this.logGroup.grantWrite(role);

    for (const spec of leadCreatedPipes) {
      const pipe = new pipes.CfnPipe(this, spec.id, {
        description: spec.description,
        roleArn: role.roleArn,
        source: streamArn,
        sourceParameters: {
          filterCriteria: {
            filters: [
              {
                pattern: JSON.stringify({
                  eventName: ['INSERT'],
                  dynamodb: { NewImage: { item_type: { S: ['lead'] }, parent_lead_id: spec.parentLeadIdFilter } },
                }),
              },
            ],
          },
          dynamoDbStreamParameters: {
            // From the oldest record, so leads written before the pipe first starts are published too.
            startingPosition: 'TRIM_HORIZON',
            batchSize: 10, // PutEvents takes up to 10 entries
            maximumBatchingWindowInSeconds: 1,
            maximumRetryAttempts: 10,
            maximumRecordAgeInSeconds: 6 * 60 * 60,
            onPartialBatchItemFailure: 'AUTOMATIC_BISECT',
            deadLetterConfig: { arn: this.deadLetterQueue.queueArn },
          },
        },
        target: this.bus.eventBusArn,
        targetParameters: {
          eventBridgeEventBusParameters: { source: leadCreatedEvent.source, detailType: leadCreatedEvent.detailType },
          inputTemplate: spec.inputTemplate,
        },
        // Errors only, without execution data: the payload is a lead (name, mobile number) and stays out of logs.
        logConfiguration: { level: 'ERROR', cloudwatchLogsLogDestination: { logGroupArn: this.logGroup.logGroupArn } },
      });
      pipe.node.addDependency(role);
      this.pipes.push(pipe);
    }
  }
}
