/**
 * Google Ads lead forms' fields (CONTRACT.md section 10), as valibot schemas made of section 2's parts
 * (shared/schemas/lead-fields.ts): Google's own, beside its column mapping (delivery.ts).
 */
import { commonLeadFields, optionalText, text } from '../schemas/lead-fields.ts';

/**
 * A Google Ads lead form delivery, mapped (delivery.ts): the common fields under the
 * social endpoint's rules, the optional fields Google's columns fill, and Google's ids (exact digits).
 */
export const googleAdsLeadFields = {
  ...commonLeadFields,
  location: optionalText('location', 200),
  notes: optionalText('notes', 5000),
  gclid: optionalText('gclid', 500),
  google_lead_id: text('google_lead_id', 200),
  google_form_id: optionalText('google_form_id', 20),
  google_campaign_id: optionalText('google_campaign_id', 20),
  google_adgroup_id: optionalText('google_adgroup_id', 20),
  google_creative_id: optionalText('google_creative_id', 20),
};
