/**
 * The Google Ads webhook's wiring, built once per container from its environment: the stores every
 * lead function's request path uses (one DynamoDB client, the account cache, the lead and rejection
 * stores) and the connected forms, cached for the same TTL. Built from the stores, not from the lead
 * endpoints' runtime (shared/runtime.ts): Google's deliveries carry no browser key, so the bundle
 * carries no challenge verification (its captcha and KMS code, ~3 KB).
 */
import { AccountDirectory } from '../domain/account-directory.ts';
import { GOOGLE_FORM_CONNECTION, GoogleFormDirectory } from '../domain/google-forms.ts';
import { newLeadId } from '../domain/lead-id.ts';
import { primeDocumentClient } from '../dynamodb/client.ts';
import { DynamoDbConnectionReader } from '../dynamodb/connections.ts';
import { requestPathStores } from '../dynamodb/repository.ts';
import { configCacheTtlSecondsFromEnvironment, documentClientFromEnvironment, rejectionLogOptionsFromEnvironment, tableNamesFromEnvironment } from '../runtime.ts';
import { telemetrySink } from '../telemetry.ts';
import type { GoogleAdsRuntime } from './webhook-handler.ts';

let containerRuntime: GoogleAdsRuntime | undefined;

export const googleAdsRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): GoogleAdsRuntime => {
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
    forms: new GoogleFormDirectory(new DynamoDbConnectionReader(db, tables.config, GOOGLE_FORM_CONNECTION), { ttlMs }),
  };
  return containerRuntime;
};

/** The same, with the container's DynamoDB client primed at init like the lead functions' (shared/runtime.ts). */
export const primedGoogleAdsRuntimeFromEnvironment = async (env: NodeJS.ProcessEnv = process.env): Promise<GoogleAdsRuntime> => {
  const runtime = googleAdsRuntimeFromEnvironment(env);
  await primeDocumentClient(documentClientFromEnvironment(env), tableNamesFromEnvironment(env).leads);
  return runtime;
};
