/**
 * Operations: alarms to one SNS topic (e-mail subscription when an address is given) and one dashboard.
 * Alarm on what loses or delays leads: API 5XX rate, function errors and throttles, DynamoDB throttling,
 * and Lead Created events the pipes could not deliver.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { leadMetrics, METRICS_NAMESPACE } from '../../shared/metric-names.ts';

export interface MonitoringProps {
  readonly dashboardName: string;
  readonly api: apigw.HttpApi;
  /** By endpoint name. */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /** By table id (Config, Leads). */
  readonly tables: Readonly<Record<string, dynamodb.ITable>>;
  readonly pipes: readonly pipes.CfnPipe[];
  readonly deadLetterQueue: sqs.IQueue;
  /** Delivery to the CRM's endpoint, when configured: its rule and dead-letter queue. */
  readonly delivery?: { readonly busName: string; readonly rule: events.IRule; readonly deadLetterQueue: sqs.IQueue };
  readonly alarmEmail?: string;
}

const period = Duration.minutes(5);

/** API 5XX share of requests, in percent, over 5 minutes, above which the alarm fires. */
export const api5xxRateThresholdPercent = 5;

export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);

    // CloudWatch can publish to an encrypted topic only with a customer managed key whose policy lets it
    // (the AWS managed aws/sns key cannot be shared with CloudWatch).
    const key = new kms.Key(this, 'TopicKey', {
      description: 'Encrypts the lead intake alarm topic',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'], // in a key policy, "*" is this key
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    this.topic = new sns.Topic(this, 'AlarmTopic', {
      displayName: 'Lead intake alarms',
      masterKey: key,
      enforceSSL: true,
    });
    // enforceSSL gives the topic a policy of its own (the TLS-only Deny), which replaces SNS's default
    // policy: without this Allow, CloudWatch could not publish and no alarm would reach anyone.
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsOfThisAccount',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    if (props.alarmEmail) {
      this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    }

    // API: 5XX responses (handler 500s and 503s, integration failures) as a share of all requests.
    const requests = props.api.metricCount({ period, statistic: 'Sum' });
    const serverErrors = props.api.metricServerError({ period, statistic: 'Sum' });
    const serverErrorRate = new cloudwatch.MathExpression({
      expression: 'IF(requests > 0, 100 * FILL(errors, 0) / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      period,
      label: 'API 5XX rate (%)',
    });
    this.alarm('Api5xxRate', serverErrorRate, api5xxRateThresholdPercent,
      `More than ${api5xxRateThresholdPercent}% of lead requests answered 5XX in 5 minutes: leads are being lost.`);

    // Functions: any error (a crash, a timeout) or throttle is a lead sender getting a 5XX.
    for (const [name, fn] of Object.entries(props.functions)) {
      this.alarm(`${title(name)}FunctionErrors`, fn.metricErrors({ period, statistic: 'Sum' }), 0,
        `The ${name} function failed (error or timeout) in the last 5 minutes.`);
      this.alarm(`${title(name)}FunctionThrottles`, fn.metricThrottles({ period, statistic: 'Sum' }), 0,
        `The ${name} function was throttled (account or reserved concurrency exhausted).`);
    }

    // Tables: on-demand tables still throttle (beyond twice the previous peak, or a hot partition).
    const tableThrottles: Record<string, cloudwatch.IMetric> = {};
    for (const [name, table] of Object.entries(props.tables)) {
      const key = name.toLowerCase(); // metric ids are unique per graph, and start lower-case
      tableThrottles[name] = new cloudwatch.MathExpression({
        expression: `FILL(${key}Reads, 0) + FILL(${key}Writes, 0)`,
        usingMetrics: {
          [`${key}Reads`]: table.metric('ReadThrottleEvents', { period, statistic: 'Sum' }),
          [`${key}Writes`]: table.metric('WriteThrottleEvents', { period, statistic: 'Sum' }),
        },
        period,
        label: `${name} throttled requests`,
      });
      this.alarm(`${name}TableThrottles`, tableThrottles[name], 0,
        `DynamoDB throttled requests on the ${name} table: lead senders get 503 and retry.`);
    }

    // Lead Created events: a failed pipe execution, or anything left in the dead-letter queue.
    const pipeFailures = props.pipes.map((pipe) => {
      const failures = new cloudwatch.Metric({
        namespace: 'AWS/EventBridge/Pipes',
        metricName: 'ExecutionFailed',
        dimensionsMap: { PipeName: pipe.ref },
        period,
        statistic: 'Sum',
        label: `${pipe.node.id} failed executions`,
      });
      this.alarm(`${pipe.node.id}Failures`, failures, 0,
        `The ${pipe.node.id} could not publish Lead Created events; the CRM is not assigning those leads.`);
      return failures;
    });
    const deadLetters = props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' });
    this.alarm('EventDeadLetters', deadLetters, 0,
      'Lead Created events gave up after retries and are in the dead-letter queue: replay them (see docs/deployment.md).');

    // Delivery to the CRM: a target invocation that failed for good, or an event given up after 24 hours.
    const deliveryMetrics: cloudwatch.IMetric[] = [];
    if (props.delivery) {
      const failedDeliveries = new cloudwatch.Metric({
        namespace: 'AWS/Events',
        metricName: 'FailedInvocations',
        dimensionsMap: { EventBusName: props.delivery.busName, RuleName: props.delivery.rule.ruleName },
        period,
        statistic: 'Sum',
        label: 'CRM deliveries failed',
      });
      const undelivered = props.delivery.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' });
      this.alarm('CrmDeliveryDeadLetters', undelivered, 0,
        'Lead Created events the CRM endpoint did not take within 24 hours are in the delivery dead-letter queue: fix the endpoint, then replay them (npm run admin -- replay-events).');
      deliveryMetrics.push(failedDeliveries, undelivered);
    }

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    const fns = Object.entries(props.functions);
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 4 }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'API requests and errors',
        left: [requests, props.api.metricClientError({ period, statistic: 'Sum' }), serverErrors],
        width: 8,
      }),
      new cloudwatch.GraphWidget({ title: 'API 5XX rate (%)', left: [serverErrorRate], width: 8 }),
      new cloudwatch.GraphWidget({
        title: 'API latency (ms)',
        left: [props.api.metricLatency({ period, statistic: 'p50' }), props.api.metricLatency({ period, statistic: 'p99' })],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Function duration p99 (ms)',
        left: fns.map(([name, fn]) => fn.metricDuration({ period, statistic: 'p99', label: name })),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Function errors and throttles',
        left: fns.map(([name, fn]) => fn.metricErrors({ period, statistic: 'Sum', label: `${name} errors` })),
        right: fns.map(([name, fn]) => fn.metricThrottles({ period, statistic: 'Sum', label: `${name} throttles` })),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Function invocations and concurrency',
        left: fns.map(([name, fn]) => fn.metricInvocations({ period, statistic: 'Sum', label: name })),
        right: fns.map(([name, fn]) => fn.metric('ConcurrentExecutions', { period, statistic: 'Maximum', label: `${name} concurrency` })),
        width: 8,
      }),
    );
    // The service's own metrics (shared/telemetry.ts), per source; refusals and failures per reason.
    const perSource = (metricName: string) =>
      new cloudwatch.MathExpression({
        expression: `SEARCH('{${METRICS_NAMESPACE},service,source} MetricName="${metricName}"', 'Sum', ${period.toSeconds()})`,
        label: metricName,
        period,
      });
    const perReason = (metricName: string) =>
      new cloudwatch.MathExpression({
        expression: `SEARCH('{${METRICS_NAMESPACE},service,source,reason} MetricName="${metricName}"', 'Sum', ${period.toSeconds()})`,
        label: metricName,
        period,
      });
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({ title: 'Leads created, per source', left: [perSource(leadMetrics.created)], width: 6 }),
      new cloudwatch.GraphWidget({
        title: 'Leads repeated and replayed, per source',
        left: [perSource(leadMetrics.repeated), perSource(leadMetrics.replayed)],
        width: 6,
      }),
      new cloudwatch.GraphWidget({ title: 'Leads refused, per source and reason', left: [perReason(leadMetrics.rejected)], width: 6 }),
      new cloudwatch.GraphWidget({ title: 'Leads failed (5xx), per reason', left: [perReason(leadMetrics.failed)], width: 6 }),
    );
    const tables = Object.entries(props.tables);
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'DynamoDB consumed capacity',
        left: tables.map(([name, t]) => t.metricConsumedWriteCapacityUnits({ period, label: `${name} WCU` })),
        right: tables.map(([name, t]) => t.metricConsumedReadCapacityUnits({ period, label: `${name} RCU` })),
        width: 8,
      }),
      new cloudwatch.GraphWidget({ title: 'DynamoDB throttled requests', left: Object.values(tableThrottles), width: 8 }),
      new cloudwatch.GraphWidget({
        title: 'Lead Created events',
        left: props.pipes.map((pipe) => new cloudwatch.Metric({
          namespace: 'AWS/EventBridge/Pipes', metricName: 'Invocations', dimensionsMap: { PipeName: pipe.ref },
          period, statistic: 'Sum', label: `${pipe.node.id} invocations`,
        })),
        right: [...pipeFailures, deadLetters, ...deliveryMetrics],
        width: 8,
      }),
    );
  }

  /**
   * An alarm that notifies the topic when the metric goes over the threshold (and again when it is back),
   * shown on the dashboard. Other constructs add theirs through it, in their own scope.
   */
  alarm(id: string, metric: cloudwatch.IMetric, threshold: number, description: string, scope: Construct = this): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(scope, id, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(new actions.SnsAction(this.topic));
    alarm.addOkAction(new actions.SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }
}

function title(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
