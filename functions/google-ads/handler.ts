import { primedGoogleAdsRuntimeFromEnvironment } from '../../shared/google/runtime.ts';
import { googleAdsHandler } from '../../shared/google/webhook-handler.ts';

/** POST /api/google-ads-lead-webhook: Google Ads lead form deliveries, each form with its own key. */
// Awaited at init: Lambda runs it at full CPU before the first request (shared/runtime.ts).
export const handler = googleAdsHandler(await primedGoogleAdsRuntimeFromEnvironment());
