/**
 * The call webhook's wiring, built once per container from its environment: the stores every lead
 * function's request path uses (one DynamoDB client, the key and account cache, the lead and rejection
 * stores) and the connected numbers, cached for the same TTL. Built from the stores, not from the lead
 * endpoints' runtime (shared/runtime.ts): a calls key is never a browser key, so the bundle carries no
 * challenge verification (its captcha and KMS code).
 */
import { AccountDirectory } from '../domain/account-directory.ts';
import { CallNumberDirectory } from '../domain/call-numbers.ts';
import { newLeadId } from '../domain/lead-id.ts';
import { DynamoDbCallNumberReader } from '../dynamodb/call-numbers.ts';
import { primeDocumentClient } from '../dynamodb/client.ts';
import { requestPathStores } from '../dynamodb/repository.ts';
import { configCacheTtlSecondsFromEnvironment, documentClientFromEnvironment, rejectionLogOptionsFromEnvironment, tableNamesFromEnvironment } from '../runtime.ts';
import { telemetrySink } from '../telemetry.ts';
import type { CallWebhookRuntime } from './webhook-handler.ts';

let containerRuntime: CallWebhookRuntime | undefined;

export const callWebhookRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): CallWebhookRuntime => {
  if (containerRuntime) return containerRuntime;
  const db = documentClientFromEnvironment(env);
  const tables = tableNamesFromEnvironment(env);
  const stores = requestPathStores(db, tables, undefined, rejectionLogOptionsFromEnvironment(env));
  const ttlMs = configCacheTtlSecondsFromEnvironment(env) * 1000;
  containerRuntime = {
    directory: new AccountDirectory(stores.keys, stores.accounts, { ttlMs }),
    leads: stores.leads,
    rejections: stores.rejections,
    newLeadId,
    now: () => new Date(),
    log: telemetrySink(),
    callNumbers: new CallNumberDirectory(new DynamoDbCallNumberReader(db, tables.config), { ttlMs }),
  };
  return containerRuntime;
};

/** The same, with the container's DynamoDB client primed at init like the lead functions' (shared/runtime.ts). */
export const primedCallWebhookRuntimeFromEnvironment = async (env: NodeJS.ProcessEnv = process.env): Promise<CallWebhookRuntime> => {
  const runtime = callWebhookRuntimeFromEnvironment(env);
  await primeDocumentClient(documentClientFromEnvironment(env), tableNamesFromEnvironment(env).leads);
  return runtime;
};
