/**
 * The call webhook's wiring, built once per container from its environment: the lead runtime every
 * endpoint shares (one DynamoDB client, the key and account cache, the lead and rejection stores) and
 * the connected numbers, cached for the same TTL.
 */
import { CallNumberDirectory } from '../domain/call-numbers.ts';
import { DynamoDbCallNumberReader } from '../dynamodb/call-numbers.ts';
import { configCacheTtlSecondsFromEnvironment, documentClientFromEnvironment, primedRuntimeFromEnvironment, runtimeFromEnvironment, tableNamesFromEnvironment } from '../runtime.ts';
import type { CallWebhookRuntime } from './webhook-handler.ts';

let containerRuntime: CallWebhookRuntime | undefined;

export const callWebhookRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): CallWebhookRuntime => {
  if (containerRuntime) return containerRuntime;
  const lead = runtimeFromEnvironment(env);
  const reader = new DynamoDbCallNumberReader(documentClientFromEnvironment(env), tableNamesFromEnvironment(env).config);
  containerRuntime = {
    directory: lead.directory,
    leads: lead.leads,
    rejections: lead.rejections,
    newLeadId: lead.newLeadId,
    now: lead.now,
    log: lead.log,
    callNumbers: new CallNumberDirectory(reader, { ttlMs: configCacheTtlSecondsFromEnvironment(env) * 1000 }),
  };
  return containerRuntime;
};

/** The same, with the container's DynamoDB client primed at init like the lead functions' (shared/runtime.ts). */
export const primedCallWebhookRuntimeFromEnvironment = async (env: NodeJS.ProcessEnv = process.env): Promise<CallWebhookRuntime> => {
  await primedRuntimeFromEnvironment(env);
  return callWebhookRuntimeFromEnvironment(env);
};
