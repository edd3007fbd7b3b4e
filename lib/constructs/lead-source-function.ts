/**
 * One declared lead source's function and route (shared/sources/registry.ts): every source whose
 * function makes the lead in the request (the four lead endpoints, Google Ads lead forms, calls). Each is a
 * lead function (same bundling, runtime, deadline and table access, no more), with a ConditionCheck
 * grant on its connection kind's items when its deliveries name a connection, on a route throttled by
 * its own settings when it has them (the stage's default otherwise). Built where its descriptor's
 * construct ids say, so declaring a source replaced no deployed function. Meta's asynchronous source
 * is its own construct (meta-lead-ads.ts).
 */
import { Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import * as path from 'node:path';
import { runtimeSettings } from '../../shared/routes.ts';
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';
import type { DeclaredLeadSource } from '../../shared/sources/registry.ts';
import type { LeadApi, RouteThrottle } from './lead-api.ts';
import { LeadFunction } from './lead-function.ts';
import type { LeadTables } from './lead-tables.ts';

export interface LeadSourceFunctionProps {
  readonly source: LeadSourceDescriptor;
  readonly stage: string;
  readonly projectRoot: string;
  readonly api: LeadApi;
  readonly tables: LeadTables;
  /** Its route's own throttle (the descriptor's settings, resolved); undefined: the stage's default. */
  readonly throttle?: RouteThrottle;
  readonly memorySize: number;
  readonly logRetentionDays: number;
  readonly configCacheTtlSeconds: number;
  /** For API key sources: a browser key's rejection records per minute. */
  readonly rejectionRecordsPerMinute: number;
  /** For browser-facing sources: the origins allowed to post from a browser. */
  readonly corsAllowedOrigins: readonly string[];
  /** Its own settings (its descriptor's `settings`), resolved, by environment variable. */
  readonly settingsEnvironment?: Readonly<Record<string, string>>;
}

/** Why a route has no API Gateway authorizer, for cdk-nag: each source's own check is in its function. */
const unauthorisedRouteReasons: Record<LeadSourceDescriptor['authentication'] | 'preflight', string> = {
  'api-key':
    'Lead senders authenticate with the x-api-key header, which the function checks against the hashed ' +
    'keys in the Config table (its 401/404 answers are part of the public contract); an API Gateway ' +
    'authorizer cannot express that, and cdk-nag cannot see it.',
  'scoped-api-key':
    'Senders call with an API key scoped to this source alone (its descriptor’s keyScope: the call webhook’s calls), in x-api-key or, ' +
    'for senders that cannot set headers, the query parameter the descriptor allows; the function checks it against the hashed keys ' +
    'in the Config table (its 401/403/404 answers are part of the public contract). The access log format carries no query string.',
  'connection-key':
    'The platform delivers without credentials API Gateway could check: each delivery carries the key of the connection it names ' +
    '(a Google form’s google_key), which the function compares in constant time with the SHA-256 hash stored for it before anything else is read.',
  'platform-signature':
    'The platform signs each delivery with its app secret (X-Hub-Signature-256); the function checks the signature before anything else is read.',
  preflight:
    'CORS preflight: browsers send OPTIONS without credentials by design, so it cannot be authorised; ' +
    'the website function answers it with the allowed origins and headers and stores nothing.',
};

/** The scope its descriptor places its function in: plain constructs for every id of the path but the last. */
const scopeOf = (root: Construct, functionPath: readonly string[]): Construct =>
  functionPath.slice(0, -1).reduce<Construct>((scope, id) => (scope.node.tryFindChild(id) as Construct | undefined) ?? new Construct(scope, id), root);

export class LeadSourceFunction {
  readonly source: LeadSourceDescriptor;
  readonly function: LeadFunction;

  constructor(root: Construct, props: LeadSourceFunctionProps) {
    const { source } = props;
    this.source = source;
    const methods = source.route.methods;
    const id = source.stack.functionPath.at(-1)!;
    this.function = new LeadFunction(scopeOf(root, source.stack.functionPath), id, {
      entry: path.join(props.projectRoot, source.entry),
      projectRoot: props.projectRoot,
      description: `Lead intake ${props.stage}: ${source.authentication === 'api-key' ? '' : `${source.title}, `}${methods.filter((m) => m !== 'OPTIONS').join('/')} ${source.route.path}`,
      memorySize: props.memorySize,
      logRetentionDays: props.logRetentionDays,
      environment: {
        ...props.tables.environment,
        [runtimeSettings.configCacheTtlSeconds]: String(props.configCacheTtlSeconds),
        ...(source.authentication === 'api-key' && { [runtimeSettings.rejectionRecordsPerMinute]: String(props.rejectionRecordsPerMinute) }),
        ...(source.browserFacing && { [runtimeSettings.corsAllowedOrigins]: props.corsAllowedOrigins.join(',') }),
        ...props.settingsEnvironment,
      },
    });
    // What the lead functions may do: read configuration (its key's or its connection's item among it),
    // write leads and rejections. A source whose deliveries name a connection writes every lead and
    // record that names it in a transaction with the connection's check; one authenticated by its
    // connection's key (Google's forms) or signed by its platform (WhatsApp's: every message has its id,
    // claimed in the write) writes nothing else, so it has no BatchWriteItem, while the call webhook,
    // authenticated by an account's key, records a call that names no number (no call id or called
    // number) as any refusal. Only a browser-facing source counts a browser key's rejection
    // records (UpdateItem), and only a source whose key is scoped to it alone counts its keys' requests
    // (UpdateItem, on those counters alone).
    // A source signed by its platform (WhatsApp's) looks up no key: it reads only its own kind's connections (below).
    const keyLookups = source.authentication !== 'platform-signature';
    props.tables.grantLeadIntake(this.function.function, {
      keyLookups,
      batchWrites: source.authentication === 'api-key' || source.authentication === 'scoped-api-key',
      rejectionCounter: source.browserFacing,
      keyRequestCounter: source.authentication === 'scoped-api-key',
    });
    // And the check of its connection in each write it makes, so a rotated key, a removed or a moved connection takes effect at once.
    if (source.connection) props.tables.grantConnectionGuard(this.function.function, source.connection);
    if (source.connection && !keyLookups) props.tables.grantConnectionReads(this.function.function, source.connection);

    const routes = props.api.api.addRoutes({
      path: source.route.path,
      methods: methods as apigw.HttpMethod[],
      integration: new HttpLambdaIntegration(source.stack.integrationId, this.function.function),
    });
    routes.forEach((route, i) => {
      if (props.throttle) props.api.throttleRoute(route, `${methods[i]} ${source.route.path}`, props.throttle);
      Validations.of(route.node.defaultChild!).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: unauthorisedRouteReasons[methods[i] === 'OPTIONS' ? 'preflight' : source.authentication],
      });
    });
  }
}
