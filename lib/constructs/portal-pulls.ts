/**
 * Portal enquiries pulled in AWS (CONTRACT.md section 17). Every `portalPullMinutes` an EventBridge
 * schedule runs the schedule function, which puts one message per connected login on its portal's
 * queue; the pull function consumes each portal's queue, at most `portalPullConcurrency` pulls of that
 * portal at once (the event source's maximum concurrency), and pulls the login: the lease on its item,
 * the watermark, exactly-once and the events are shared/pulled/'s. Everything per portal (its queue,
 * its event source, its widgets) comes from the portal registry, so a new portal adds nothing here.
 *
 * Portals allow-list the addresses that may pull (MagicBricks answers an "Access Denied" page to any
 * other): with `portalEgress` `fixed` (the default) the pull function runs in a VPC of its own whose one
 * NAT gateway has one Elastic IP, the address the stack outputs for an account to give its portals.
 * DynamoDB is reached through a gateway endpoint (no NAT charge per lead); KMS and EventBridge, a few
 * calls per pull, through the NAT.
 */
import { CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { configTable as configTableDefinition, leadsTable as leadsTableDefinition } from '../../shared/dynamodb/tables.ts';
import { METRICS_NAMESPACE } from '../../shared/metric-names.ts';
import type { PortalEntry } from '../../shared/portals/registry.ts';
import { PORTAL_PULL_QUEUES } from '../../shared/pulled/queue.ts';
import { LEASE_MS, portalLoginShape, pullSettings } from '../../shared/pulled/wire-names.ts';
import { sourceWatchSettings } from '../../shared/source-watch-settings.ts';
import { deadLetterQueue } from './lead-events.ts';
import { LeadFunction } from './lead-function.ts';
import type { LeadTables } from './lead-tables.ts';
import type { Monitoring } from './monitoring.ts';
import { grantPortalCredentials } from './portal-credentials.ts';

/** Where a pull's requests to the portals leave from: one fixed address (a NAT gateway's Elastic IP), or Lambda's own, which change. */
export const portalEgressKinds = ['fixed', 'shared'] as const;
export type PortalEgress = (typeof portalEgressKinds)[number];

/** A pull runs at most this long: under the lease (LEASE_MS), so a pull cut off by its timeout never overlaps the next one's lease. */
export const PULL_TIMEOUT = Duration.minutes(4);
if (PULL_TIMEOUT.toMilliseconds() >= LEASE_MS) throw new Error('the pull function must time out before its lease ends');

/** How long a queued pull waits at most (the schedule queues another every `portalPullMinutes`, at most 60). */
export const PULL_QUEUE_RETENTION = Duration.hours(1);

/** The Config partitions a pull reads and writes: its login's item, and the schedule's list of logins. */
const LOGIN_PARTITIONS = [`${portalLoginShape.partitionPrefix}*`];
const SCHEDULE_PARTITION = 'PORTALPULLS';

export interface PortalPullsProps {
  readonly stage: string;
  readonly projectRoot: string;
  readonly entries: { readonly pull: string; readonly schedule: string };
  readonly portals: readonly PortalEntry[];
  readonly tables: LeadTables;
  readonly bus: events.IEventBus;
  /** The key portal credentials are sealed with (shared with Meta's page tokens, under its own encryption context). */
  readonly credentialKey: kms.IKey;
  readonly pullMinutes: number;
  readonly overlapMinutes: number;
  readonly failingMinutes: number;
  readonly concurrency: number;
  readonly egress: PortalEgress;
  /** A portal's base URL where it is not the portal's own (a test double, a proxy), by portal name. */
  readonly baseUrls: Readonly<Record<string, string>>;
  readonly memorySize: number;
  readonly logRetentionDays: number;
  readonly monitoring: Monitoring;
}

export class PortalPulls extends Construct {
  readonly pullFunction: lambda.IFunction;
  readonly scheduleFunction: lambda.IFunction;
  readonly queues: ReadonlyMap<string, sqs.Queue>;
  readonly schedule: events.Rule;
  /** The address portals see the pulls come from (`fixed` egress only). */
  readonly egressAddress?: string;

  constructor(scope: Construct, id: string, props: PortalPullsProps) {
    super(scope, id);
    if (!Number.isInteger(props.concurrency) || props.concurrency < 2) {
      // Lambda's SQS event sources run at least two at once: fewer cannot be promised in AWS.
      throw new Error(`portalPullConcurrency must be a whole number of at least 2 in AWS (an SQS event source's least maximum concurrency); got ${props.concurrency}`);
    }

    const egress = props.egress === 'fixed' ? this.#fixedEgress() : undefined;
    this.egressAddress = egress?.address;

    const pull = new LeadFunction(this, 'Function', {
      entry: props.entries.pull,
      projectRoot: props.projectRoot,
      description: `Lead intake ${props.stage}: portal pulls, each queued portal login pulled and its enquiries made leads`,
      memorySize: props.memorySize,
      logRetentionDays: props.logRetentionDays,
      timeout: PULL_TIMEOUT,
      environment: {
        [leadsTableDefinition.envVar]: props.tables.leads.tableName,
        [configTableDefinition.envVar]: props.tables.config.tableName,
        [sourceWatchSettings.busName]: props.bus.eventBusName,
        [pullSettings.overlapMinutes.environment]: String(props.overlapMinutes),
        [pullSettings.failingMinutes.environment]: String(props.failingMinutes),
        [pullSettings.concurrency.environment]: String(props.concurrency),
        ...Object.fromEntries(props.portals.flatMap(({ source }) => (props.baseUrls[source.name] ? [[source.baseUrl.environment, props.baseUrls[source.name]!]] : []))),
      },
      ...(egress && { vpc: { vpc: egress.vpc, subnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } } }),
    });
    const fn = pull.function;
    this.pullFunction = fn;
    if (egress) {
      Validations.of(fn.role!.node.defaultChild!).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
        reason:
          "Lambda's network interfaces in the pull VPC: the managed policy Lambda documents for it (ec2 network interface actions, which IAM authorises on \"*\" only), attached by the CDK to a function placed in a VPC.",
      });
    }

    // As a lead function makes a lead (no key lookup: a pull names its login), plus the pull's own reads and writes.
    // A pull writes every lead and record under its enquiry's claim and its login's guard, in transactions: no batch writes.
    props.tables.grantLeadIntake(fn, { keyLookups: false, batchWrites: false, rejectionCounter: false });
    props.tables.grantConnectionGuard(fn, { shape: portalLoginShape });
    iam.Grant.addToPrincipal({
      grantee: fn,
      // The lease, the watermark and the failing state: conditional updates that answer the item (no GetItem).
      actions: ['dynamodb:UpdateItem'],
      resourceArns: [props.tables.config.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': LOGIN_PARTITIONS } },
    });
    // A slice's claims read in batches (shared/dynamodb/decided-claims.ts): the claims' partitions only.
    iam.Grant.addToPrincipal({
      grantee: fn,
      actions: ['dynamodb:BatchGetItem'],
      resourceArns: [props.tables.leads.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['IDEMPOTENCY#*'] } },
    });
    grantPortalCredentials(fn, props.credentialKey, 'open');
    props.bus.grantPutEventsTo(fn);

    const failed = deadLetterQueue(this, 'DeadLetterQueue', 'the portal pull queues');
    const queues = new Map<string, sqs.Queue>();
    for (const { source } of props.portals) {
      const queue = new sqs.Queue(this, `Queue${source.title.replace(/\W/g, '')}`, {
        // A message says "pull this login now": once later schedules have queued others, an older one is worth nothing.
        retentionPeriod: PULL_QUEUE_RETENTION,
        visibilityTimeout: Duration.seconds(PULL_TIMEOUT.toSeconds() * 3),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: failed, maxReceiveCount: 2 },
      });
      queues.set(source.name, queue);
      // Lambda's poller takes messages with the pull function's role. A mapping of our own: the
      // SqsEventSource would grant GetQueueUrl and ChangeMessageVisibility too, which nothing calls.
      queue.grant(fn, 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes');
      new lambda.EventSourceMapping(this, `Pulls${source.title.replace(/\W/g, '')}`, {
        target: fn,
        eventSourceArn: queue.queueArn,
        // One login per invocation: a pull may take minutes, and each is leased on its own.
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: props.concurrency,
      });
    }
    this.queues = queues;

    const schedule = new LeadFunction(this, 'Schedule', {
      entry: props.entries.schedule,
      projectRoot: props.projectRoot,
      description: `Lead intake ${props.stage}: portal pull schedule, one pull per connected portal login queued`,
      memorySize: 256,
      logRetentionDays: props.logRetentionDays,
      timeout: Duration.seconds(60),
      environment: {
        [configTableDefinition.envVar]: props.tables.config.tableName,
        [PORTAL_PULL_QUEUES]: JSON.stringify(Object.fromEntries([...queues].map(([name, queue]) => [name, queue.queueUrl]))),
      },
    });
    this.scheduleFunction = schedule.function;
    iam.Grant.addToPrincipal({
      grantee: schedule.function,
      actions: ['dynamodb:Query'],
      resourceArns: [props.tables.config.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [SCHEDULE_PARTITION] } },
    });
    iam.Grant.addToPrincipal({ grantee: schedule.function, actions: ['sqs:SendMessage'], resourceArns: [...queues.values()].map((queue) => queue.queueArn) });

    this.schedule = new events.Rule(this, 'Every', {
      description: `Portal pulls every ${props.pullMinutes} minute(s): each connected login queued once`,
      schedule: events.Schedule.rate(Duration.minutes(props.pullMinutes)),
      targets: [new targets.LambdaFunction(schedule.function, { retryAttempts: 2, maxEventAge: Duration.minutes(props.pullMinutes) })],
    });

    this.#monitor(props, failed, pull);
  }

  /** One VPC, one NAT gateway, one Elastic IP: the one address a portal allow-lists. */
  #fixedEgress(): { vpc: ec2.Vpc; address: string } {
    const address = new ec2.CfnEIP(this, 'EgressAddress', { domain: 'vpc' });
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      natGatewayProvider: ec2.NatProvider.gateway({ eipAllocationIds: [address.attrAllocationId] }),
      subnetConfiguration: [
        { name: 'Egress', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'Pulls', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 24 },
      ],
      gatewayEndpoints: { DynamoDb: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB } },
      // No custom resource (a function of its own) to empty the default security group: nothing uses it.
      restrictDefaultSecurityGroup: false,
    });
    Validations.of(vpc.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-VPC7',
      reason:
        'The VPC carries only the portal pulls: HTTPS to the portals and to AWS APIs, no inbound traffic at all. The pull function logs every window and its counts; flow logs would add cost and no finding.',
    });
    return { vpc, address: address.ref };
  }

  #monitor(props: PortalPullsProps, failed: sqs.IQueue, pull: LeadFunction): void {
    const period = Duration.minutes(5);
    const m = props.monitoring;
    m.alarm('PullFunctionErrors', this.pullFunction.metricErrors({ period, statistic: 'Sum' }), 0, 'A portal pull failed on something other than its portal (the database, a timeout): the next pull retries from the watermark', this);
    m.alarm('ScheduleFunctionErrors', this.scheduleFunction.metricErrors({ period, statistic: 'Sum' }), 0, 'The portal pull schedule could not queue the logins: no portal is being pulled', this);
    m.alarm('PullDeadLetters', failed.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }), 0, 'Portal pulls that failed twice are on the pull dead-letter queue (the next scheduled pull covers them; look at the pull function\'s log)', this);
    // Pulls waiting longer than two periods: the portals (or the concurrency) are not keeping up.
    for (const [name, queue] of this.queues) {
      m.alarm(`PullsWaiting${name.replace(/\W/g, '')}`, queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }), props.pullMinutes * 2 * 60,
        `Pulls of ${name} logins have waited over ${props.pullMinutes * 2} minutes: raise portalPullConcurrency or look for a slow portal`, this);
    }

    // What each pull logged (shared/pulled/pull.ts): enquiries stored and slices failed, per portal.
    const perPortal = (id: string, metricName: string, pattern: logs.IFilterPattern, value: string) =>
      new logs.MetricFilter(this, id, { logGroup: pull.logGroup, metricNamespace: METRICS_NAMESPACE, metricName, filterPattern: pattern, metricValue: value, dimensions: { portal: '$.portal' }, unit: cloudwatch.Unit.COUNT });
    perPortal('Stored', 'PortalEnquiriesStored', logs.FilterPattern.stringValue('$.event', '=', 'portal_pull'), '$.stored');
    perPortal('FailedSlices', 'PortalSlicesFailed', logs.FilterPattern.all(logs.FilterPattern.stringValue('$.event', '=', 'portal_pull_slice'), logs.FilterPattern.stringValue('$.outcome', '=', 'failed')), '1');
    const byPortal = (metricName: string) => props.portals.map(({ source }) => new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { portal: source.name }, period, statistic: 'Sum', label: source.title }));
    m.dashboard.addWidgets(
      new cloudwatch.GraphWidget({ title: 'Portal enquiries stored, per portal', left: byPortal('PortalEnquiriesStored'), width: 8 }),
      new cloudwatch.GraphWidget({ title: 'Portal slices failed, per portal', left: byPortal('PortalSlicesFailed'), width: 8 }),
      new cloudwatch.GraphWidget({
        title: 'Portal pulls waiting (s), per portal',
        left: [...this.queues].map(([name, queue]) => queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum', label: name })),
        right: [failed.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: 'dead letters' })],
        width: 8,
      }),
    );
    if (this.egressAddress) new CfnOutput(this, 'EgressAddressOutput', { key: 'PortalEgressAddress', value: this.egressAddress, description: 'The address portal pulls come from: give it to each portal to allow-list' });
  }
}
