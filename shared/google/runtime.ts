/** The Google Ads webhook's wiring (shared/webhook-runtime.ts), with its connected forms. */
import { GOOGLE_FORM_CONNECTION } from '../domain/google-forms.ts';
import { DynamoDbConnectionReader } from '../dynamodb/connections.ts';
import { KeyedConnectionDirectory } from '../intake/keyed-connection-directory.ts';
import { connectionWebhookRuntime } from '../webhook-runtime.ts';
import type { GoogleAdsRuntime } from './webhook-handler.ts';

const runtime = connectionWebhookRuntime((db, configTable, ttlMs) => ({
  connections: new KeyedConnectionDirectory(new DynamoDbConnectionReader(db, configTable, GOOGLE_FORM_CONNECTION), { ttlMs }),
}));

export const googleAdsRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => GoogleAdsRuntime = runtime.fromEnvironment;
export const primedGoogleAdsRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => Promise<GoogleAdsRuntime> = runtime.primed;
