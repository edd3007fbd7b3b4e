import { googleAdsRuntimeFromEnvironment } from '../../shared/google/runtime.ts';
import { googleAdsHandler } from '../../shared/google/webhook-handler.ts';

/** POST /api/google-ads-lead-webhook: Google Ads lead form deliveries, each form with its own key. */
export const handler = googleAdsHandler(googleAdsRuntimeFromEnvironment());
