/**
 * What the local tools share: where the tables are, how they are made, and the real Lambda handlers
 * loaded in-process with the environment the deployed functions get.
 */
import * as path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ServiceUnavailableError } from '../../shared/domain/errors.ts';
import { createTable } from '../../shared/dynamodb/create-tables.ts';
import { NETWORK_MESSAGE, type ErrorShape } from '../../shared/dynamodb/failures.ts';
import type { TableNames } from '../../shared/dynamodb/repository.ts';
import { configTable, leadsTable } from '../../shared/dynamodb/tables.ts';
import type { LeadContext, LeadEvent, LeadResponse } from '../../shared/http/lambda.ts';
import { adminEntry, FUNCTION_TIMEOUT_SECONDS, runtimeSettings } from '../../shared/routes.ts';
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';
import { leadSources } from '../../shared/sources/registry.ts';

/** Repository root: the sources' entries (shared/sources/registry.ts) and the default seed are relative to it. */
export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

export const DEFAULT_SEED_FILE = path.join(projectRoot, 'seed', 'demo.json');

/** Table names on a local DynamoDB when CONFIG_TABLE_NAME / LEADS_TABLE_NAME are not set. */
export const LOCAL_TABLE_PREFIX = 'lead-intake-';

/** The tables to use: the table-name variables when set, else the local defaults (local use only). */
export const localTableNames = (env: NodeJS.ProcessEnv = process.env): TableNames => ({
  config: env[configTable.envVar] || `${LOCAL_TABLE_PREFIX}${configTable.id}`,
  leads: env[leadsTable.envVar] || `${LOCAL_TABLE_PREFIX}${leadsTable.id}`,
});

/** Creates the tables that are missing, from the definitions the CDK stack uses. */
export const ensureTables = async (client: DynamoDBClient, names: TableNames): Promise<void> => {
  await createTable(client, configTable, names.config);
  await createTable(client, leadsTable, names.leads);
};

/** A lead function's handler as Lambda calls it (a Middy handler also takes an options argument). */
export type LambdaHandler = (event: LeadEvent, context: LeadContext, ...more: never[]) => Promise<LeadResponse>;
/** Handlers of declared sources by the source's name (`website`, `google_ads`, `meta`). */
export type LeadHandlers = Readonly<Partial<Record<string, LambdaHandler>>>;

/** A declared source as the local tools serve it: its descriptor and its handler. */
export interface ServedSource {
  readonly source: LeadSourceDescriptor;
  readonly handler: LambdaHandler;
}

/** The name its function has locally: `lead-intake-<its folder under functions/>`, as the deployed function is named in its logs. */
export const localFunctionName = (source: Pick<LeadSourceDescriptor, 'entry'>): string => `lead-intake-${source.entry.split('/')[1]}`;

/**
 * Gives this process the environment a deployed function has: table names and, for DynamoDB Local,
 * its endpoint. Each handler builds its runtime from it when it is first imported.
 */
export const setFunctionEnvironment = (dynamodbEndpoint: string, tables: TableNames): void => {
  process.env[runtimeSettings.dynamodbEndpoint] = dynamodbEndpoint;
  process.env[configTable.envVar] = tables.config;
  process.env[leadsTable.envVar] = tables.leads;
};

export interface SourceLoading {
  /** Only the source of this name (`website`, `google_ads`, `meta`); every source when absent. */
  readonly only?: string;
  /**
   * The local stand-in of an asynchronous source (Meta's webhook, whose queue and worker run in this
   * process: shared/meta/local.ts); such a source is left out without one.
   */
  readonly asynchronous?: (source: LeadSourceDescriptor) => LambdaHandler | undefined | Promise<LambdaHandler | undefined>;
}

/**
 * Imports the real handler of each declared source (its `entry`) after giving this process the
 * environment a deployed function has (setFunctionEnvironment).
 */
export const loadSourceHandlers = async (dynamodbEndpoint: string, tables: TableNames, { only, asynchronous }: SourceLoading = {}): Promise<ServedSource[]> => {
  setFunctionEnvironment(dynamodbEndpoint, tables);
  const served: ServedSource[] = [];
  for (const source of leadSources) {
    if (only !== undefined && source.name !== only) continue;
    const handler = source.worker ? await asynchronous?.(source) : ((await import(path.join(projectRoot, source.entry))) as { handler: LambdaHandler }).handler;
    if (handler) served.push({ source, handler });
  }
  return served;
};

const THROTTLING = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded']);
const TIMEOUTS = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

/**
 * What a database failure really was, for a terminal: where the database is and the cause's code
 * ("could not reach DynamoDB at http://127.0.0.1:8000 (ECONNREFUSED)"), not the 503 sentence a lead
 * sender gets. Undefined when the error is not a failure to reach or use the database.
 */
export const describeDatabaseFailure = (error: unknown, endpoint: string): string | undefined => {
  // By shape, not instanceof: the SDK wraps socket errors, and errors may come from another realm.
  let cause = error as ErrorShape | undefined;
  for (let depth = 0; typeof cause === 'object' && cause !== null && depth < 6; depth += 1, cause = cause.cause as ErrorShape | undefined) {
    const code = typeof cause.code === 'string' && /^E[A-Z_]+$/.test(cause.code) ? cause.code : NETWORK_MESSAGE.exec(String(cause.message))?.[1];
    if (code) return `could not reach DynamoDB at ${endpoint} (${code})`;
    const name = String(cause.name);
    if (TIMEOUTS.has(name)) return `DynamoDB at ${endpoint} did not answer in time (${name})`;
    if (THROTTLING.has(name)) return `DynamoDB at ${endpoint} is throttling requests (${name})`;
    const status = cause.$metadata?.httpStatusCode ?? 0;
    if (status >= 500) return `DynamoDB at ${endpoint} failed (${name}, HTTP ${status})`;
  }
  return undefined;
};

/** The admin function's handler, loaded like the sources' (after setFunctionEnvironment). */
export const loadAdminHandler = async (): Promise<LambdaHandler> =>
  ((await import(path.join(projectRoot, adminEntry))) as { handler: LambdaHandler }).handler;

/** A one-line description of an error, for a terminal: no stack trace. */
export const describeError = (error: unknown, databaseEndpoint?: string): string => {
  if (!(error instanceof Error)) return String(error);
  const database = databaseEndpoint === undefined ? undefined : describeDatabaseFailure(error, databaseEndpoint);
  if (database) return database;
  const code = (error as NodeJS.ErrnoException).code;
  if (error.name === 'ResourceNotFoundException') return `${error.message} (are the table names right? see CONFIG_TABLE_NAME / LEADS_TABLE_NAME)`;
  if (error.name === 'CredentialsProviderError') return `no AWS credentials: ${error.message} (set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)`;
  if (error instanceof ServiceUnavailableError || code === 'ECONNREFUSED') {
    const cause = error.cause;
    return `the database could not be reached${cause instanceof Error ? ` (${cause.message || cause.name})` : ''}`;
  }
  return error.message || error.name;
};

/** The local run's stand-in for the function timeout: seconds each request may take, as in Lambda. */
export const FUNCTION_TIMEOUT_VARIABLE = 'FUNCTION_TIMEOUT_SECONDS';

/**
 * Milliseconds each request gets: FUNCTION_TIMEOUT_SECONDS, or the stack's timeout. Lambda allows 1 s
 * to 900 s; fractions are accepted locally so a test can run a deadline in a second or two.
 */
export const functionTimeoutMs = (env: NodeJS.ProcessEnv = process.env): number => {
  const value = env[FUNCTION_TIMEOUT_VARIABLE];
  if (value === undefined || value.trim() === '') return FUNCTION_TIMEOUT_SECONDS * 1000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0.5 || seconds > 900) {
    throw new Error(`${FUNCTION_TIMEOUT_VARIABLE} must be a number of seconds from 0.5 to 900, not ${JSON.stringify(value)}`);
  }
  return Math.round(seconds * 1000);
};
