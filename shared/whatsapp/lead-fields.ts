/**
 * A WhatsApp lead's fields (CONTRACT.md section 15): the social endpoint's (section 2: name, mobile,
 * platform, notes of at most 5,000 characters), and the chat's own, each within its bound. The mapping
 * (notification.ts) already keeps each within it; these are the rules the record names when it does not.
 */
import { optionalText, socialLeadFields } from '../schemas/lead-fields.ts';

export const whatsappLeadFields = {
  ...socialLeadFields,
  whatsapp_message_id: optionalText('whatsapp_message_id', 200),
  whatsapp_phone_number_id: optionalText('whatsapp_phone_number_id', 200),
  whatsapp_referral_type: optionalText('whatsapp_referral_type', 10),
  whatsapp_ad_id: optionalText('whatsapp_ad_id', 200),
  whatsapp_source_url: optionalText('whatsapp_source_url', 2000),
  whatsapp_headline: optionalText('whatsapp_headline', 300),
  ctwa_clid: optionalText('ctwa_clid', 200),
};
