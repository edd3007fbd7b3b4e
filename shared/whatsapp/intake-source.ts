/**
 * WhatsApp chats as the intake runs them (shared/intake/types.ts): the Meta app's signature, a signed
 * JSON body, its descriptor's answer, numbers connected platform-wide whose unknown ones are ignored
 * (logged by the number's id, counted), the social endpoint's rules with platform `wp`, and the reader
 * of its notifications (notification.ts). Names from wire-names.ts only (bundle size).
 */
import { leadFieldValidator } from '../domain/field-validation.ts';
import { submissionOf, type SubmissionTagging } from '../domain/submissions.ts';
import type { DeclaredAs } from '../intake/steps.ts';
import type { IntakeSource } from '../intake/types.ts';
import { whatsappLeadFields } from './lead-fields.ts';
import { whatsappDeliveriesOf, type WhatsAppDelivery, type WhatsAppReaderSettings } from './notification.ts';
import { whatsappConversationSetting, whatsappNumberConnectionKey, whatsappWireNames } from './wire-names.ts';

/** Section 2's rules for the social endpoint's fields, with the chat's own; other members are not the lead's. */
const validateWhatsAppFields = leadFieldValidator(whatsappLeadFields, 'ignore');

/** Its leads are social leads of platform `wp`: section 1's sub source check applies (an account without `wp` refuses them). */
const whatsappTagging: SubmissionTagging = { source: whatsappWireNames.leadSource, subSource: () => ({ kind: 'social', name: 'wp' }) };

export const whatsappIntakeSource = (settings: WhatsAppReaderSettings, now: () => Date = () => new Date()): IntakeSource<WhatsAppDelivery> & DeclaredAs<'platform-signature', 'signed-json'> => ({
  name: whatsappWireNames.name,
  authentication: { kind: 'platform-signature', header: 'x-hub-signature-256' },
  bodyFormat: 'signed-json',
  // Meta batches several messages in a notification: far below this.
  maxBodyBytes: 3 * 1024 * 1024,
  answer: whatsappWireNames.acceptance,
  platformId: whatsappWireNames.platformId,
  connection: { key: whatsappNumberConnectionKey, notConnected: { answer: 'ignore' } },
  lead: {
    validate: (fields) => validateWhatsAppFields(fields),
    submission: (fields) => submissionOf(whatsappTagging, fields),
  },
  read: (request) => whatsappDeliveriesOf(request.body ?? {}, settings, now()),
});

/** The conversation window from WHATSAPP_CONVERSATION_DAYS (days, a fraction allowed; 7 when unset). */
export const conversationDaysFromEnvironment = (env: NodeJS.ProcessEnv = process.env): number => {
  const { environment, default: fallback } = whatsappConversationSetting;
  const text = env[environment];
  if (text === undefined || text.trim() === '') return fallback;
  const days = Number(text);
  if (!Number.isFinite(days) || days <= 0) throw new Error(`${environment} must be a number of days above 0 (a fraction allowed)`);
  return days;
};
