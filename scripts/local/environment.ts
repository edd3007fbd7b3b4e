/**
 * What the local tools share: where the tables are, how they are made, and the real Lambda handlers
 * loaded in-process with the environment the deployed functions get.
 */
import * as path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTable } from '../../shared/dynamodb/create-tables.ts';
import type { TableNames } from '../../shared/dynamodb/repository.ts';
import { configTable, leadsTable } from '../../shared/dynamodb/tables.ts';
import type { LeadContext, LeadEvent, LeadResponse } from '../../shared/http/lambda.ts';
import { adminEntry, leadRoutes, runtimeSettings, type EndpointName } from '../../shared/routes.ts';

/** Repository root: route entries (shared/routes.ts) and the default seed are relative to it. */
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
export type LeadHandlers = Readonly<Record<EndpointName, LambdaHandler>>;

export const endpointNames = leadRoutes.map((route) => route.endpoint);

/**
 * Imports the real handlers (functions/<endpoint>/handler.ts) after giving this process the
 * environment a deployed function has: table names and, for DynamoDB Local, its endpoint. Each
 * handler builds its runtime from the environment when it is first imported.
 */
export const loadHandlers = async (dynamodbEndpoint: string, tables: TableNames, only?: EndpointName): Promise<Partial<Record<EndpointName, LambdaHandler>>> => {
  process.env[runtimeSettings.dynamodbEndpoint] = dynamodbEndpoint;
  process.env[configTable.envVar] = tables.config;
  process.env[leadsTable.envVar] = tables.leads;
  const handlers: Partial<Record<EndpointName, LambdaHandler>> = {};
  for (const route of leadRoutes) {
    if (only && route.endpoint !== only) continue;
    const module = (await import(path.join(projectRoot, route.entry))) as { handler: LambdaHandler };
    handlers[route.endpoint] = module.handler;
  }
  return handlers;
};

/** The admin function's handler, loaded like the lead handlers (after `loadHandlers` set the environment). */
export const loadAdminHandler = async (): Promise<LambdaHandler> =>
  ((await import(path.join(projectRoot, adminEntry))) as { handler: LambdaHandler }).handler;

/** A one-line description of an error, for a terminal: no stack trace. */
export const describeError = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (error.name === 'ResourceNotFoundException') return `${error.message} (are the table names right? see CONFIG_TABLE_NAME / LEADS_TABLE_NAME)`;
  if (error.name === 'ServiceUnavailableError' || code === 'ECONNREFUSED') {
    const cause = (error as { cause?: unknown }).cause;
    return `the database could not be reached${cause instanceof Error ? ` (${cause.message || cause.name})` : ''}`;
  }
  return error.message || error.name;
};
