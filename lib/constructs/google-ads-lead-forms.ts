/**
 * Google Ads lead forms straight in (CONTRACT.md section 10): the webhook route and its function. No
 * queue: the lead is created in the request, in one DynamoDB transaction with its idempotency record,
 * like any lead, so the function is a lead function like the four endpoints' (same bundling, runtime,
 * deadline and table access, no more) on a route throttled apart from them.
 */
import { Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import * as path from 'node:path';
import { googleAdsRoute, runtimeSettings } from '../../shared/routes.ts';
import type { LeadApi, RouteThrottle } from './lead-api.ts';
import { LeadFunction } from './lead-function.ts';
import type { LeadTables } from './lead-tables.ts';

export interface GoogleAdsLeadFormsProps {
  readonly stage: string;
  readonly projectRoot: string;
  readonly api: LeadApi;
  readonly tables: LeadTables;
  readonly throttle: RouteThrottle;
  readonly memorySize: number;
  readonly logRetentionDays: number;
  readonly configCacheTtlSeconds: number;
}

export class GoogleAdsLeadForms extends Construct {
  readonly webhook: LeadFunction;

  constructor(scope: Construct, id: string, props: GoogleAdsLeadFormsProps) {
    super(scope, id);

    this.webhook = new LeadFunction(this, 'Webhook', {
      entry: path.join(props.projectRoot, googleAdsRoute.entry),
      projectRoot: props.projectRoot,
      description: `Lead intake ${props.stage}: Google Ads lead forms, POST ${googleAdsRoute.path}`,
      memorySize: props.memorySize,
      logRetentionDays: props.logRetentionDays,
      environment: {
        ...props.tables.environment,
        [runtimeSettings.configCacheTtlSeconds]: String(props.configCacheTtlSeconds),
      },
    });
    // What the lead functions may do: read configuration (the form's item among it), write leads and rejections.
    props.tables.grantLeadIntake(this.webhook.function, { keyLookups: true, batchWrites: false, rejectionCounter: false });
    // And the check of the form's key hash in each write it makes, so a rotated key answers 401 at once.
    props.tables.grantGoogleFormGuard(this.webhook.function);

    const [route] = props.api.api.addRoutes({
      path: googleAdsRoute.path,
      methods: [apigw.HttpMethod.POST],
      integration: new HttpLambdaIntegration('GoogleAdsIntegration', this.webhook.function),
    });
    props.api.throttleRoute(route!, `POST ${googleAdsRoute.path}`, props.throttle);
    Validations.of(route!.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Google posts lead form deliveries without credentials API Gateway could check: each carries the form’s own key (google_key), ' +
        'which the function compares in constant time with the SHA-256 hash stored for the form before anything else is read.',
    });
  }
}
