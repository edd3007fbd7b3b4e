import { primedWhatsAppWebhookRuntimeFromEnvironment } from '../../shared/whatsapp/runtime.ts';
import { whatsappWebhookHandler } from '../../shared/whatsapp/webhook-handler.ts';

/** GET and POST /api/whatsapp-webhook: Meta's subscription check and signed WhatsApp Business Account notifications. */
// Awaited at init: Lambda runs it at full CPU before the first request (shared/runtime.ts).
export const handler = whatsappWebhookHandler(await primedWhatsAppWebhookRuntimeFromEnvironment());
