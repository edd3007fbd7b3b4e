/**
 * One lead endpoint's Lambda function, with the defaults every endpoint shares: Node.js 24 on arm64, an ESM
 * bundle built by the local esbuild (never Docker) with the AWS SDK inside it, source maps, its own log
 * group with a retention, and a role that can write to that log group and nothing else until granted more.
 */
import { Duration } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_TIMEOUT_SECONDS } from '../../shared/routes.ts';
import { nodeBuiltinAliases } from '../bundling/node-builtins.ts';

export interface LeadFunctionProps {
  /** Absolute path of the handler module; it exports `handler`. */
  readonly entry: string;
  /** Repository root: where package-lock.json and tsconfig.json are. */
  readonly projectRoot: string;
  readonly description: string;
  /** MB. */
  readonly memorySize: number;
  readonly logRetentionDays: number;
  readonly environment: Record<string, string>;
  /**
   * Every DynamoDB call of a request is bounded by the time the function has left (shared/deadline.ts), so
   * a slow database gives a 503 from the handler, never this timeout. 10 s leaves room for a cold start
   * plus a throttled-then-retried transaction and its read-back, well inside API Gateway's 30 s.
   * @default FUNCTION_TIMEOUT_SECONDS (shared/routes.ts): 10 seconds
   */
  readonly timeout?: Duration;
  /** A function that must reach the internet from a fixed address (the portal pulls): its VPC and subnets. @default none */
  readonly vpc?: { readonly vpc: ec2.IVpc; readonly subnets: ec2.SubnetSelection };
}

/**
 * Gives bundled CommonJS dependencies a `require` for Node built-ins in an ESM bundle. Taken from
 * `process.getBuiltinModule`, not imported: an ESM import of a built-in costs a cold start its facade
 * (lib/bundling/node-builtins.ts).
 */
export const esmRequireBanner = "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);";

/** The SDK's default credential chain, and the module that replaces it in the bundles. */
export const SDK_DEFAULT_CREDENTIALS = '@aws-sdk/credential-provider-node';
export const LAMBDA_CREDENTIALS = './shared/dynamodb/lambda-credentials.ts';

/**
 * The SDK's event-stream codec, and the module that replaces it in the bundles. Every client's protocol
 * (@smithy/core's HttpProtocol) imports it dynamically for operations that stream events, and esbuild
 * bundles a dynamic import like any other: about 19 KB minified in every bundle (7% of a lead
 * function's), for operations none of its clients (DynamoDB, EventBridge, SQS, KMS, Secrets Manager) has.
 * Replaced by a module that throws, should one ever be called.
 */
export const SDK_EVENT_STREAMS = '@smithy/core/event-streams';
export const NO_EVENT_STREAMS = './lib/bundling/sdk-event-streams.cjs';

/**
 * Every esbuild alias of the bundles, relative to the project root: Lambda hands the role's
 * credentials over in the environment, so the SDK's default credential chain (and the STS/SSO clients
 * it brings) is replaced by the environment provider alone; the SDK's event-stream codec is left out;
 * Node built-ins come in as CommonJS.
 */
export const bundleAliases = (): Record<string, string> => ({
  [SDK_DEFAULT_CREDENTIALS]: LAMBDA_CREDENTIALS,
  [SDK_EVENT_STREAMS]: NO_EVENT_STREAMS,
  ...nodeBuiltinAliases(),
});

export class LeadFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: LeadFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'LogGroup', { retention: props.logRetentionDays as logs.RetentionDays });

    // Our own role instead of the default one with the AWSLambdaBasicExecutionRole managed policy: that
    // policy may create any log group and write to all of them; this role writes to its own log group only.
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.description}`,
    });
    this.logGroup.grantWrite(role);

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: `${props.projectRoot}/package-lock.json`,
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout ?? Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      role,
      logGroup: this.logGroup,
      ...(props.vpc && { vpc: props.vpc.vpc, vpcSubnets: props.vpc.subnets }),
      // No --enable-source-maps: it costs every cold start about 10 ms; the stacks the service logs are
      // mapped when logged (shared/source-mapped-stack.ts, docs/decisions/0007).
      environment: props.environment,
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: 'node24',
        mainFields: ['module', 'main'],
        banner: esmRequireBanner,
        minify: true,
        sourceMap: true,
        sourceMapMode: nodejs.SourceMapMode.DEFAULT,
        sourcesContent: false,
        // Bundle the AWS SDK too: a pinned, tree-shaken client instead of whatever the runtime ships.
        externalModules: [],
        esbuildArgs: Object.fromEntries(Object.entries(bundleAliases()).map(([name, file]) => [`--alias:${name}`, file])),
        forceDockerBundling: false,
        logLevel: nodejs.LogLevel.WARNING,
      },
    });
  }
}
