/**
 * Meta Lead Ads straight in (CONTRACT.md section 8): the webhook route and function, the queue that
 * makes an acknowledged notification durable, the worker that turns each leadgen change into a lead,
 * the dead-letter queue with its alarm, the app's secrets and the KMS key that seals page tokens.
 *
 * Least privilege: the webhook may read the secret and send to the queue, nothing else (it touches no
 * table); the worker reads the secret, decrypts with the page-token key only (the admin CLI encrypts,
 * as the operator), reads and writes the tables as the lead functions do, and may change the
 * visibility of the queue's messages (its back-off).
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import * as path from 'node:path';
import { DEFAULT_GRAPH_API_URL } from '../../shared/meta/graph.ts';
import { DEFAULT_RETRY, metaSettings } from '../../shared/meta/runtime.ts';
import { APP_SECRET_PLACEHOLDER, metaSecretSettings } from '../../shared/meta/secrets.ts';
import { META_WORKER_TIMEOUT_SECONDS } from '../../shared/meta/settings.ts';
import { PAGE_TOKEN_KEY_ID } from '../../shared/meta/token-cipher.ts';
import { pageTokenScope } from '../../shared/sealed-secrets.ts';
import { runtimeSettings } from '../../shared/routes.ts';
import type { metaSource } from '../../shared/meta/source.ts';
import { LeadFunction } from './lead-function.ts';
import type { LeadTables } from './lead-tables.ts';
import type { Monitoring } from './monitoring.ts';

export interface MetaLeadAdsProps {
  /** Its declaration in the registry (shared/meta/source.ts): the webhook's route and entry, the worker's entry. */
  readonly source: typeof metaSource;
  readonly stage: string;
  readonly projectRoot: string;
  readonly httpApi: apigw.HttpApi;
  readonly tables: LeadTables;
  /** The stack's alarms: the queue's and the functions' alarms notify its topic and show on its dashboard. */
  readonly monitoring: Pick<Monitoring, 'alarm'>;
  readonly memorySize: number;
  readonly logRetentionDays: number;
  readonly configCacheTtlSeconds: number;
  /** The Graph API base with its version. @default https://graph.facebook.com/v26.0/ */
  readonly graphApiUrl?: string;
}

/** The worker's time per batch (shared/meta/settings.ts). */
const WORKER_TIMEOUT = Duration.seconds(META_WORKER_TIMEOUT_SECONDS);

export class MetaLeadAds extends Construct {
  readonly webhook: LeadFunction;
  readonly worker: LeadFunction;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly secret: secretsmanager.Secret;
  readonly pageTokenKey: kms.Key;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: MetaLeadAdsProps) {
    super(scope, id);

    // The verify token is generated; the app secret is Meta's, set by the operator (README). Until it
    // is, the placeholder makes the webhook answer 500 rather than trust a known secret.
    this.secret = new secretsmanager.Secret(this, 'AppSecrets', {
      description: `Lead intake ${props.stage}: the Meta app's App Secret and the webhook verify token, as JSON {"appSecret", "verifyToken"}`,
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ appSecret: APP_SECRET_PLACEHOLDER }),
        generateStringKey: 'verifyToken',
        excludePunctuation: true,
        passwordLength: 40,
      },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.secret.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The App Secret is issued by Meta and changes only when it is reset in the Meta app dashboard, and the verify token must match ' +
        "what is entered in the app's webhook settings: neither can be rotated by a Lambda rotation function.",
    });

    // Page tokens live (sealed) in the Config table, which is retained: so is the key that opens them.
    this.pageTokenKey = new kms.Key(this, 'PageTokenKey', {
      description: `Lead intake ${props.stage}: seals Facebook page access tokens in the Config table`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.deadLetterQueue.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is the dead-letter queue of the Meta leadgen queue: what lands here is kept 14 days for redrive, ' +
        'with an alarm; a dead-letter queue of a dead-letter queue would only hide it.',
    });
    this.queue = new sqs.Queue(this, 'LeadgenQueue', {
      // AWS's advice for a Lambda event source: six times the function's timeout.
      visibilityTimeout: Duration.seconds(WORKER_TIMEOUT.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: DEFAULT_RETRY.maxReceiveCount },
    });

    this.webhook = new LeadFunction(this, props.source.stack.functionPath.at(-1)!, {
      entry: path.join(props.projectRoot, props.source.entry),
      projectRoot: props.projectRoot,
      description: `Lead intake ${props.stage}: GET/POST ${props.source.route.path} (Meta leadgen webhook)`,
      memorySize: props.memorySize,
      logRetentionDays: props.logRetentionDays,
      // Meta wants its answer within seconds; the SQS and Secrets Manager clients give up in a few, so the
      // handler answers (a 500 Meta retries) before the function could time out.
      timeout: Duration.seconds(10),
      environment: {
        [metaSettings.queueUrl]: this.queue.queueUrl,
        [metaSecretSettings.secretArn]: this.secret.secretArn,
      },
    });
    // SendMessage and GetSecretValue alone (grantSendMessages and grantRead add GetQueueAttributes,
    // GetQueueUrl and DescribeSecret, which nothing calls: test/iam).
    this.queue.grant(this.webhook.function, 'sqs:SendMessage');
    this.grantSecretValue(this.webhook.function);

    this.worker = new LeadFunction(this, props.source.worker.functionPath.at(-1)!, {
      entry: path.join(props.projectRoot, props.source.worker.entry),
      projectRoot: props.projectRoot,
      description: `Lead intake ${props.stage}: Meta leadgen worker (reads leads from the Graph API)`,
      memorySize: props.memorySize,
      logRetentionDays: props.logRetentionDays,
      timeout: WORKER_TIMEOUT,
      environment: {
        ...props.tables.environment,
        [runtimeSettings.configCacheTtlSeconds]: String(props.configCacheTtlSeconds),
        [metaSettings.queueUrl]: this.queue.queueUrl,
        [metaSettings.graphApiUrl]: props.graphApiUrl ?? DEFAULT_GRAPH_API_URL,
        [metaSettings.maxReceiveCount]: String(DEFAULT_RETRY.maxReceiveCount),
        [metaSettings.retryBaseSeconds]: String(DEFAULT_RETRY.baseSeconds),
        [metaSettings.retryMaxSeconds]: String(DEFAULT_RETRY.maxSeconds),
        [metaSecretSettings.secretArn]: this.secret.secretArn,
        [PAGE_TOKEN_KEY_ID]: this.pageTokenKey.keyArn,
      },
    });
    props.tables.grantLeadIntake(this.worker.function, { keyLookups: false, batchWrites: true, rejectionCounter: false });
    this.grantSecretValue(this.worker.function);
    // Page tokens only: Decrypt under a page's encryption context, so the worker cannot open a challenge
    // secret sealed with the same key (lib/constructs/challenge-secrets.ts).
    this.worker.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [this.pageTokenKey.keyArn],
        conditions: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': Object.keys(pageTokenScope.context('page')) },
          Null: { 'kms:EncryptionContextKeys': 'false' },
        },
      }),
    );
    // Lambda's poller takes messages with the worker's role (ReceiveMessage, DeleteMessage,
    // GetQueueAttributes); the worker backs off with ChangeMessageVisibility. A mapping of our own: the
    // SqsEventSource would grant GetQueueUrl too, which nothing calls.
    this.queue.grant(this.worker.function, 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ChangeMessageVisibility');
    new lambda.EventSourceMapping(this, 'WorkerQueueMapping', {
      target: this.worker.function,
      eventSourceArn: this.queue.queueArn,
      batchSize: 10,
      reportBatchItemFailures: true,
      maxConcurrency: 5,
    });

    const integration = new HttpLambdaIntegration('MetaWebhookIntegration', this.webhook.function);
    const routes = props.httpApi.addRoutes({
      path: props.source.route.path,
      methods: props.source.route.methods.map((method) => apigw.HttpMethod[method]),
      integration,
    });
    for (const route of routes) {
      Validations.of(route.node.defaultChild!).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          "Meta calls the webhook without credentials API Gateway could check: POST is authenticated by the X-Hub-Signature-256 HMAC of the body " +
          'under the app secret, GET by the verify token, both checked by the function in constant time before anything is read.',
      });
    }

    const alarm = (alarmId: string, metric: cloudwatch.IMetric, description: string) => this.alarms.push(props.monitoring.alarm(alarmId, metric, 0, description, this));
    const period = Duration.minutes(5);
    alarm('DeadLetters', this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      'Meta leadgen changes failed every retry and wait on the dead-letter queue: find why in the worker log and admin rejections, then redrive them.');
    alarm('WebhookErrors', this.webhook.function.metricErrors({ period, statistic: 'Sum' }),
      'The Meta webhook function failed: Meta retries, but notifications are delayed.');
    alarm('WorkerErrors', this.worker.function.metricErrors({ period, statistic: 'Sum' }),
      'The Meta worker function failed: leadgen changes are delayed until the queue retries them.');
  }

  /**
   * Another function that checks the app's signatures and verify token (the WhatsApp webhook: one Meta
   * app serves both): the secret's ARN in its environment, and GetSecretValue on it alone.
   */
  grantAppSecrets(fn: lambda.Function): void {
    fn.addEnvironment(metaSecretSettings.secretArn, this.secret.secretArn);
    this.grantSecretValue(fn);
  }

  private grantSecretValue(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({ grantee, actions: ['secretsmanager:GetSecretValue'], resourceArns: [this.secret.secretArn] });
  }

  /** The functions by name, for dashboards. */
  get functions(): Record<string, lambda.IFunction> {
    return { 'meta-webhook': this.webhook.function, 'meta-worker': this.worker.function };
  }
}
