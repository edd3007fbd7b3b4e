/**
 * The container's wiring, read from its environment: one DynamoDB client, one repository, one
 * configuration cache, shared by every request the container serves (and by the four endpoints
 * when the local server runs them in one process).
 */
import { AccountDirectory } from './domain/account-directory.ts';
import { newLeadId } from './domain/lead-id.ts';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, primeDocumentClient } from './dynamodb/client.ts';
import { requestPathStores, type RequestPathStores, type TableNames } from './dynamodb/repository.ts';
import type { RejectionLogOptions } from './dynamodb/rejections.ts';
import { configTable, leadsTable } from './dynamodb/tables.ts';
import type { LeadRuntime } from './http/lead-handler.ts';
import { runtimeSettings } from './routes.ts';
import { telemetrySink } from './telemetry.ts';
import { challengesFromEnvironment } from './captcha/runtime.ts';

export const DEFAULT_CONFIG_CACHE_TTL_SECONDS = 30;

const required = (name: string, env: NodeJS.ProcessEnv): string => {
  const value = env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
};

export const tableNamesFromEnvironment = (env: NodeJS.ProcessEnv = process.env): TableNames => ({
  config: required(configTable.envVar, env),
  leads: required(leadsTable.envVar, env),
});

export interface RuntimeParts {
  readonly stores: RequestPathStores;
  readonly configCacheTtlSeconds: number;
  readonly corsAllowedOrigins: readonly string[];
  readonly log?: LeadRuntime['log'];
  /** Challenges for browser keys; by default the environment's (shared/captcha/runtime.ts). */
  readonly challenges?: LeadRuntime['challenges'];
}

export const leadRuntime = ({ stores, configCacheTtlSeconds, corsAllowedOrigins, log = telemetrySink(), challenges = challengesFromEnvironment() }: RuntimeParts): LeadRuntime => ({
  directory: new AccountDirectory(stores.keys, stores.accounts, { ttlMs: configCacheTtlSeconds * 1000 }),
  leads: stores.leads,
  rejections: stores.rejections,
  newLeadId,
  now: () => new Date(),
  log,
  corsAllowedOrigins,
  challenges,
});

let containerClient: DynamoDBDocumentClient | undefined;

/** The container's one DynamoDB client, built on first use: every store of the container shares its connections. */
export const documentClientFromEnvironment = (env: NodeJS.ProcessEnv = process.env): DynamoDBDocumentClient => {
  const endpoint = env[runtimeSettings.dynamodbEndpoint];
  return (containerClient ??= createDocumentClient(endpoint ? { endpoint } : {}));
};

/** The bound on a browser key's rejection records, from REJECTION_RECORDS_PER_MINUTE (60 when unset). */
export const rejectionLogOptionsFromEnvironment = (env: NodeJS.ProcessEnv = process.env): RejectionLogOptions => {
  const text = env[runtimeSettings.rejectionRecordsPerMinute];
  if (text === undefined || text === '') return {};
  const perMinute = Number(text);
  if (!Number.isSafeInteger(perMinute) || perMinute < 1) throw new Error(`${runtimeSettings.rejectionRecordsPerMinute} must be a whole number, 1 or more`);
  return { recordsPerMinute: perMinute };
};

let containerRuntime: LeadRuntime | undefined;

/** Seconds a container trusts configuration it read (keys, accounts, Google forms) before re-reading it. */
export const configCacheTtlSecondsFromEnvironment = (env: NodeJS.ProcessEnv = process.env): number => {
  const ttl = Number(env[runtimeSettings.configCacheTtlSeconds] ?? DEFAULT_CONFIG_CACHE_TTL_SECONDS);
  if (!Number.isFinite(ttl) || ttl < 0) throw new Error(`${runtimeSettings.configCacheTtlSeconds} must be a number of seconds`);
  return ttl;
};

/** The runtime of this container, built on first use from the environment. */
export const runtimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): LeadRuntime => {
  if (containerRuntime) return containerRuntime;
  containerRuntime = leadRuntime({
    stores: requestPathStores(documentClientFromEnvironment(env), tableNamesFromEnvironment(env), undefined, rejectionLogOptionsFromEnvironment(env)),
    configCacheTtlSeconds: configCacheTtlSecondsFromEnvironment(env),
    corsAllowedOrigins: (env[runtimeSettings.corsAllowedOrigins] ?? '*').split(',').map((origin) => origin.trim()).filter(Boolean),
    challenges: challengesFromEnvironment(env),
  });
  return containerRuntime;
};

/**
 * The runtime of this container, with its DynamoDB client primed (see primeDocumentClient): what a
 * lead function's module awaits at init, so the first lead pays only its round trips.
 */
export const primedRuntimeFromEnvironment = async (env: NodeJS.ProcessEnv = process.env): Promise<LeadRuntime> => {
  const runtime = runtimeFromEnvironment(env);
  await primeDocumentClient(documentClientFromEnvironment(env), tableNamesFromEnvironment(env).leads);
  return runtime;
};
