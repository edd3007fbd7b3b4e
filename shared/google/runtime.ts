/**
 * The Google Ads webhook's wiring, built once per container from its environment: the lead runtime
 * every endpoint shares (one DynamoDB client, the account cache, the lead and rejection stores) and
 * the connected forms, cached for the same TTL.
 */
import { GOOGLE_FORM_CONNECTION, GoogleFormDirectory } from '../domain/google-forms.ts';
import { DynamoDbConnectionReader } from '../dynamodb/connections.ts';
import { configCacheTtlSecondsFromEnvironment, documentClientFromEnvironment, primedRuntimeFromEnvironment, runtimeFromEnvironment, tableNamesFromEnvironment } from '../runtime.ts';
import type { GoogleAdsRuntime } from './webhook-handler.ts';

let containerRuntime: GoogleAdsRuntime | undefined;

export const googleAdsRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): GoogleAdsRuntime => {
  if (containerRuntime) return containerRuntime;
  const lead = runtimeFromEnvironment(env);
  const reader = new DynamoDbConnectionReader(documentClientFromEnvironment(env), tableNamesFromEnvironment(env).config, GOOGLE_FORM_CONNECTION);
  containerRuntime = {
    directory: lead.directory,
    leads: lead.leads,
    rejections: lead.rejections,
    newLeadId: lead.newLeadId,
    now: lead.now,
    log: lead.log,
    forms: new GoogleFormDirectory(reader, { ttlMs: configCacheTtlSecondsFromEnvironment(env) * 1000 }),
  };
  return containerRuntime;
};

/** The same, with the container's DynamoDB client primed at init like the lead functions' (shared/runtime.ts). */
export const primedGoogleAdsRuntimeFromEnvironment = async (env: NodeJS.ProcessEnv = process.env): Promise<GoogleAdsRuntime> => {
  await primedRuntimeFromEnvironment(env);
  return googleAdsRuntimeFromEnvironment(env);
};
