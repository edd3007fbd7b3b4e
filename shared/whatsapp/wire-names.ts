/**
 * WhatsApp chats' names that its functions read at run time (its name, its leads' source, its platform
 * id, its answer, its conversation window's setting). Apart from the descriptor (source.ts), which only
 * the stack and the tools read: esbuild keeps a whole object literal that one bundle reads a field of.
 */
import type { ConnectionKeyDeclaration } from '../sources/connection-kind.ts';

/** What the webhook's function reads of its declaration. */
export const whatsappWireNames = {
  name: 'whatsapp',
  leadSource: 'social',
  // A message id names one delivery with the business number it was sent to (CONTRACT.md section 15: its records carry both).
  platformId: { field: 'whatsapp_message_id', idempotencyPrefix: 'whatsapp-message', qualifiedBy: ['whatsapp_phone_number_id'] },
  acceptance: { status: 200, message: 'Notification received', withLead: false },
  // Section 15's bound: Meta batches several messages in a notification, far below it.
  maxBodyBytes: 3 * 1024 * 1024,
} as const;

/**
 * The conversation window (CONTRACT.md section 15): the stack's setting `whatsappConversationDays`, handed
 * to the function (and read by `npm start`) as WHATSAPP_CONVERSATION_DAYS, in days, a fraction allowed.
 */
export const whatsappConversationSetting = { name: 'whatsappConversationDays', environment: 'WHATSAPP_CONVERSATION_DAYS', default: 7 } as const;

/**
 * Its numbers in the connection store (shared/sources/connection-kind.ts): one number belongs to one
 * account, keyed by Meta's phone number id alone; the id is ASCII digits, 1 to 200 of them (CONTRACT.md
 * section 14's bound on every identifier a webhook sends), kept as Meta sends it.
 */
export const whatsappNumberConnectionKey = {
  kind: 'whatsapp_number',
  shape: { scope: 'platform', partitionPrefix: 'WHATSAPPNUMBER#', itemSortKey: 'WHATSAPPNUMBER', listingPrefix: 'WHATSAPPNUMBERS#', listingSortPrefix: 'NUMBER#', idAttribute: 'phone_number_id' },
  id: { rule: 'pattern', pattern: '^[0-9]{1,200}$' },
} as const satisfies ConnectionKeyDeclaration;
