/**
 * WhatsApp chats (CONTRACT.md section 15) as a declared source: Meta's WhatsApp Business Account
 * notifications, signed with the Meta app's secret (section 8's), answered synchronously (a message needs
 * no Graph read, so its lead is stored before the 200). The first message of a sender's conversation with
 * a connected business number is a `social` lead of platform `wp`. Its numbers are connections of their
 * own kind (`whatsapp_number`: one number, one account). The names its function reads are wire-names.ts's.
 */
import type { LeadSourceDescriptor } from '../sources/descriptor.ts';
import { docsByReader, whyNamed } from '../sources/named-outside.ts';
import { whatsappNumberAdminRoutes, whatsappNumberConnections, whatsappNumberConnectionWords } from './connections.ts';
import { whatsappConversationSetting, whatsappWireNames } from './wire-names.ts';

export const whatsappSource = {
  ...whatsappWireNames,
  invokeName: 'whatsapp',
  title: 'WhatsApp chats',
  brief: 'WhatsApp chats with a project’s number',
  route: { path: '/api/whatsapp-webhook', methods: ['GET', 'POST'], queryString: true },
  entry: 'functions/whatsapp-webhook/handler.ts',
  bodyFormat: 'signed-json',
  authentication: 'platform-signature',
  browserFacing: false,
  // Apart from the lead endpoints': Meta delivers each message once (and retries what is not answered
  // 200 for up to 7 days), so a flood here must not use up what the lead senders are allowed.
  throttle: {
    rateLimit: { name: 'whatsappThrottlingRateLimit', default: 50 },
    burstLimit: { name: 'whatsappThrottlingBurstLimit', default: 100 },
  },
  // The conversation window, in days: from about 9 seconds (a tester's) to a year.
  settings: [{ ...whatsappConversationSetting, min: 0.0001, max: 365 }],
  // Its deliveries name a number: each write carries the number's guard (a ConditionCheck on its item).
  connection: { ...whatsappNumberConnections, ...whatsappNumberConnectionWords },
  channel: { connectionField: 'whatsapp_phone_number_id' },
  platformId: {
    ...whatsappWireNames.platformId,
    label: 'message',
    descriptions: {
      whatsapp_phone_number_id: 'A WhatsApp chat’s record (endpoint `whatsapp`): the business number’s id (Meta’s `phone_number_id`).',
      whatsapp_message_id: 'A WhatsApp chat’s record (endpoint `whatsapp`): the id of the message that began the conversation.',
    },
  },
  stack: { functionPath: ['WhatsAppWebhook', 'Webhook'], integrationId: 'WhatsAppWebhookIntegration', monitoringName: 'whatsapp' },
  banner: {
    label: 'WhatsApp webhook',
    note: 'GET subscription check, POST notifications signed with META_APP_SECRET; conversations of WHATSAPP_CONVERSATION_DAYS days (7): {seed.whatsappNumbers} number(s) in the seed; npm run admin -- add-whatsapp-number',
  },
  openapi: 'shared/whatsapp/openapi.ts',
  admin: { routes: whatsappNumberAdminRoutes },
  sampleEvents: ['events/whatsapp-click-to-chat.json'],
  namedOutside: {
    'seed/demo.json': whyNamed.seed,
    'docs/adding-a-lead-source.md': `${whyNamed.guide}: its worked example`,
    ...docsByReader('docs/data-model.md', 'docs/deployment.md'),
  },
} as const satisfies LeadSourceDescriptor;
