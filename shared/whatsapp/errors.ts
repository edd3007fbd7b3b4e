/**
 * WhatsApp chats (CONTRACT.md section 15): why a conversation's first message did not become a lead.
 * The webhook answers 200 all the same (Meta could fix none of it by retrying); the account sees the record.
 */
import { refusal } from '../domain/errors.ts';

/** The sender is a WhatsApp username whose phone number Meta withholds (`from_user_id` or `user_id`, no `from`): no mobile to make a lead of. */
export class WhatsAppNumberWithheldError extends /* @__PURE__ */ refusal(422, 'whatsapp_number_withheld', "The sender's WhatsApp number is withheld (a WhatsApp username)") {}
