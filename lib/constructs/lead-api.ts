/**
 * The HTTP API (API Gateway v2, payload format 2.0): each lead source adds its routes (lead-source-function.ts,
 * from shared/sources/registry.ts), an OPTIONS route on browser-facing ones among them (the website handler answers CORS preflight itself, the
 * same code locally and deployed, so the API has no CORS configuration of its own: an HTTP API with one
 * ignores the function's CORS headers, and the function's per-key answer, which echoes only a browser key's
 * own origins, is the one that must reach the page). One `$default` stage, auto-deployed, with JSON access
 * logs, throttled per route: the browser-facing website route on limits of its own, so a flood on the
 * public form cannot use up what the server-to-server routes are allowed. See docs/decisions/0001-http-api.md.
 * The admin routes (/admin/v1, CONTRACT.md section 9) share the API and its stage, with IAM authorization.
 */
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { AdminRoute } from '../../shared/routes.ts';

export interface LeadApiProps {
  readonly apiName: string;
  /** The admin API's routes and its one function, behind IAM authorization (SigV4). */
  readonly adminRoutes: readonly AdminRoute[];
  readonly adminFunction: lambda.IFunction;
  /** Each route without a throttle of its own (the stage's default route throttle): the server-to-server endpoints'. */
  readonly defaultThrottle: RouteThrottle;
  readonly logRetentionDays: number;
}

export interface RouteThrottle {
  /** Steady-state requests per second. */
  readonly rateLimit: number;
  /** Requests absorbed above the rate. */
  readonly burstLimit: number;
}

/**
 * One JSON object per request. No header, body, path or query string is logged: the API key travels in a
 * header (or, for the call webhook's providers, in the `key` query parameter) and lead data in the body,
 * and none of it may reach the logs. The route is logged as its template (`routeKey`). A request API
 * Gateway answers itself is logged by its error's type (a gateway response type, such as `THROTTLED`),
 * never by its error message: for a refused SigV4 signature that message can hold the canonical request,
 * query included (`/people?mobile_number=...`).
 */
export const accessLogFields = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  errorType: '$context.error.responseType',
} as const;

export class LeadApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly accessLogGroup: logs.LogGroup;
  /** `{base_url}` of the spec: `https://<api-id>.execute-api.<region>.amazonaws.com`, no trailing slash. */
  readonly baseUrl: string;
  /** The stage's per-route throttles (CloudFormation's RouteSettings, keys spelled as the service spells them). */
  readonly #routeSettings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};

  constructor(scope: Construct, id: string, props: LeadApiProps) {
    super(scope, id);

    this.api = new apigw.HttpApi(this, 'HttpApi', {
      apiName: props.apiName,
      description: 'Lead intake: website, portal A, portal B and social lead endpoints',
      createDefaultStage: false,
    });

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', { retention: props.logRetentionDays as logs.RetentionDays });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.defaultThrottle,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });
    this.baseUrl = this.api.apiEndpoint;

    (this.stage.node.defaultChild as apigw.CfnStage).routeSettings = this.#routeSettings;

    // The admin API: only principals allowed execute-api:Invoke on a route get through (docs/deployment.md
    // has policies that limit a CRM principal to one account); everything else gets the API's own 403.
    const adminIntegration = new HttpLambdaIntegration('adminIntegration', props.adminFunction);
    const iamAuthorizer = new HttpIamAuthorizer();
    for (const route of props.adminRoutes) {
      this.api.addRoutes({ path: route.path, methods: [route.method as apigw.HttpMethod], integration: adminIntegration, authorizer: iamAuthorizer });
    }
  }

  /** Throttles a route on limits of its own instead of the stage's default. */
  throttleRoute(route: apigw.HttpRoute, routeKey: string, throttle: RouteThrottle): void {
    this.#routeSettings[routeKey] = { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit };
    // A stage's route settings name routes that must exist first.
    this.stage.node.addDependency(route);
  }
}
