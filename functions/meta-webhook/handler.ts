import { webhookRuntimeFromEnvironment } from '../../shared/meta/webhook-runtime.ts';
import { metaWebhookHandler } from '../../shared/meta/webhook-handler.ts';

/** GET and POST /api/meta-leadgen-webhook: Meta's subscription check and signed leadgen notifications. */
export const handler = metaWebhookHandler(webhookRuntimeFromEnvironment());
