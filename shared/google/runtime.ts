/** The Google Ads webhook's wiring (shared/webhook-runtime.ts), with its connected forms. */
import { GoogleFormDirectory } from './forms.ts';
import { googleFormConnectionKey } from './wire-names.ts';
import { DynamoDbConnectionReader } from '../dynamodb/connections.ts';
import { connectionWebhookRuntime } from '../webhook-runtime.ts';
import type { GoogleAdsRuntime } from './webhook-handler.ts';

const runtime = connectionWebhookRuntime((db, configTable, ttlMs) => ({
  forms: new GoogleFormDirectory(new DynamoDbConnectionReader(db, configTable, googleFormConnectionKey), { ttlMs }),
}));

export const googleAdsRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => GoogleAdsRuntime = runtime.fromEnvironment;
export const primedGoogleAdsRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => Promise<GoogleAdsRuntime> = runtime.primed;
