/**
 * The Meta worker's wiring, read from the container's environment and built once per container: its
 * pages, Graph client, queue back-off, and the lead runtime the four endpoints use (same stores,
 * account cache, rejection log). The webhook's is webhook-runtime.ts: it carries no DynamoDB or KMS.
 */
import { MetaPageDirectory, type PageTokenCipher } from './pages.ts';
import { DynamoDbMetaPageReader } from './page-store.ts';
import { DEFAULT_CONFIG_CACHE_TTL_SECONDS, documentClientFromEnvironment, runtimeFromEnvironment, tableNamesFromEnvironment } from '../runtime.ts';
import { runtimeSettings } from '../routes.ts';
import type { LeadRuntime } from '../http/lead-handler.ts';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { metaSettings } from './settings.ts';
import { DEFAULT_GRAPH_API_URL, graphLeadReader, type MetaLeadReader } from './graph.ts';
import type { LeadgenDependencies } from './leadgen.ts';
import { sqsLeadgenQueue, type RedeliveryControl } from './queue.ts';
import { metaSecretsFromEnvironment, type MetaSecrets } from './secrets.ts';
import { pageTokenCipherFromEnvironment } from './token-cipher.ts';
import type { MetaWorkerRuntime, RetryPolicy } from './worker-handler.ts';

export { metaSettings } from './settings.ts';

/** In AWS: about two hours of retries (30 s doubling to 15 min, 12 receives), then the dead-letter queue. */
export const DEFAULT_RETRY: RetryPolicy = { maxReceiveCount: 12, baseSeconds: 30, maxSeconds: 900 };

const positive = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`${name} must be a positive number`);
  return number;
};

export const retryPolicyFromEnvironment = (env: NodeJS.ProcessEnv, fallback: RetryPolicy = DEFAULT_RETRY): RetryPolicy => ({
  maxReceiveCount: Math.round(positive(env, metaSettings.maxReceiveCount, fallback.maxReceiveCount)),
  baseSeconds: positive(env, metaSettings.retryBaseSeconds, fallback.baseSeconds),
  maxSeconds: positive(env, metaSettings.retryMaxSeconds, fallback.maxSeconds),
});

export interface LeadgenParts {
  readonly lead: LeadRuntime;
  readonly db: DynamoDBDocumentClient;
  readonly configTable: string;
  readonly cipher: PageTokenCipher;
  readonly secrets: () => Promise<MetaSecrets>;
  readonly graphApiUrl?: string;
  readonly configCacheTtlSeconds: number;
  readonly graph?: MetaLeadReader;
}

/** The worker's dependencies from its parts (the tests build them from theirs). */
export const leadgenDependencies = ({ lead, db, configTable, cipher, secrets, graphApiUrl, configCacheTtlSeconds, graph }: LeadgenParts): LeadgenDependencies => ({
  ...lead,
  pages: new MetaPageDirectory(new DynamoDbMetaPageReader(db, configTable), cipher, { ttlMs: configCacheTtlSeconds * 1000 }),
  graph: graph ?? graphLeadReader({ baseUrl: graphApiUrl || DEFAULT_GRAPH_API_URL, appSecret: async () => (await secrets()).appSecret }),
});

let workerRuntime: MetaWorkerRuntime | undefined;

export const workerRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env, redelivery?: RedeliveryControl, retry?: RetryPolicy): MetaWorkerRuntime => {
  if (workerRuntime && !redelivery) return workerRuntime;
  const lead = runtimeFromEnvironment(env);
  const ttl = Number(env[runtimeSettings.configCacheTtlSeconds] ?? DEFAULT_CONFIG_CACHE_TTL_SECONDS);
  const queueUrl = env[metaSettings.queueUrl];
  if (!redelivery && !queueUrl) throw new Error(`${metaSettings.queueUrl} is not set`);
  const built: MetaWorkerRuntime = {
    leadgen: leadgenDependencies({
      lead,
      db: documentClientFromEnvironment(env),
      configTable: tableNamesFromEnvironment(env).config,
      cipher: pageTokenCipherFromEnvironment(env),
      secrets: metaSecretsFromEnvironment(env),
      ...(env[metaSettings.graphApiUrl] && { graphApiUrl: env[metaSettings.graphApiUrl] }),
      configCacheTtlSeconds: ttl,
    }),
    redelivery: redelivery ?? sqsLeadgenQueue(queueUrl!),
    retry: retryPolicyFromEnvironment(env, retry),
    log: lead.log,
  };
  if (!redelivery) workerRuntime = built;
  return built;
};
