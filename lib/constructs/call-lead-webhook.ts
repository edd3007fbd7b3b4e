/**
 * Calls to a project's number straight in (CONTRACT.md section 13): the webhook route and its
 * function. No queue: the lead (or the call's rejection record) is written in the request, in one
 * DynamoDB transaction with its exactly-once claim, like any lead, so the function is a lead function
 * like the four endpoints' (same bundling, runtime, deadline and table access, no more) on a route
 * throttled apart from them.
 */
import { Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import * as path from 'node:path';
import { callWebhookRoute, runtimeSettings } from '../../shared/routes.ts';
import type { LeadApi, RouteThrottle } from './lead-api.ts';
import { LeadFunction } from './lead-function.ts';
import type { LeadTables } from './lead-tables.ts';

export interface CallLeadWebhookProps {
  readonly stage: string;
  readonly projectRoot: string;
  readonly api: LeadApi;
  readonly tables: LeadTables;
  readonly throttle: RouteThrottle;
  readonly memorySize: number;
  readonly logRetentionDays: number;
  readonly configCacheTtlSeconds: number;
}

export class CallLeadWebhook extends Construct {
  readonly webhook: LeadFunction;

  constructor(scope: Construct, id: string, props: CallLeadWebhookProps) {
    super(scope, id);

    this.webhook = new LeadFunction(this, 'Webhook', {
      entry: path.join(props.projectRoot, callWebhookRoute.entry),
      projectRoot: props.projectRoot,
      description: `Lead intake ${props.stage}: calls to project numbers, ${callWebhookRoute.methods.join(' and ')} ${callWebhookRoute.path}`,
      memorySize: props.memorySize,
      logRetentionDays: props.logRetentionDays,
      environment: {
        ...props.tables.environment,
        [runtimeSettings.configCacheTtlSeconds]: String(props.configCacheTtlSeconds),
      },
    });
    // What the lead functions may do, no more: read configuration (its key, the account, the number's
    // item), write leads and rejection records (each with its claim, a Put of the same transaction; a
    // record without a call id, with its lookup items, one BatchWriteItem). No rejection counter: a calls
    // key is never a browser key.
    props.tables.grantLeadIntake(this.webhook.function, { keyLookups: true, batchWrites: true, rejectionCounter: false });

    const methods = callWebhookRoute.methods.map((method) => apigw.HttpMethod[method]);
    const integration = new HttpLambdaIntegration('CallWebhookIntegration', this.webhook.function);
    const routes = props.api.api.addRoutes({ path: callWebhookRoute.path, methods, integration });
    routes.forEach((route, i) => {
      props.api.throttleRoute(route, `${callWebhookRoute.methods[i]} ${callWebhookRoute.path}`, props.throttle);
      Validations.of(route.node.defaultChild!).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'Telephony providers call with an API key limited to calls, in x-api-key or, for providers that cannot set headers, ' +
          'the key query parameter; the function checks it against the hashed keys in the Config table (its 401/403/404 ' +
          'answers are part of the public contract). The access log format carries no query string.',
      });
    });
  }
}
