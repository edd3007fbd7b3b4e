import { primedCallWebhookRuntimeFromEnvironment } from '../../shared/calls/runtime.ts';
import { callWebhookHandler } from '../../shared/calls/webhook-handler.ts';

/** GET|POST /api/call-lead-webhook/{provider}: calls to a project's number, from Exotel, Knowlarity or any provider. */
// Awaited at init: Lambda runs it at full CPU before the first request (shared/runtime.ts).
export const handler = callWebhookHandler(await primedCallWebhookRuntimeFromEnvironment());
