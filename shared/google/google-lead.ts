/**
 * Google Ads lead form deliveries (CONTRACT.md section 10) as a source of the one intake
 * (shared/intake/): what is truly Google's. A delivery names its form and carries the form's key
 * (`connection-key`: 401 `Invalid google_key` for a wrong key, an unknown form and a form connected to
 * no account alike); its columns become the lead's fields (delivery.ts), checked by the social
 * endpoint's rules; its `lead_id` is its platform id, so a redelivery, or simultaneous deliveries, of one
 * lead_id store one lead or one record; a test lead is refused before validation and recorded.
 * The intake does the rest (the form's guard in every write, its records kept once, the answer).
 */
import { submissionOf, type SubmissionTagging } from '../domain/submissions.ts';
import { leadFieldValidator } from '../domain/field-validation.ts';
import { GoogleTestLeadError, InvalidGoogleKeyError } from '../domain/google-errors.ts';
import { isGoogleFormId, GOOGLE_FORM_CONNECTION } from '../domain/google-forms.ts';
import type { DeclaredAs } from '../intake/steps.ts';
import type { Delivery, IntakeSource } from '../intake/types.ts';
import { googleAdsLeadFields } from './lead-fields.ts';
import { deliveryOf, leadFieldsOf, type GoogleDelivery } from './delivery.ts';
import { googleAdsWireNames } from './wire-names.ts';

/** The endpoint name Google leads carry in logs, metrics and rejection records, and their lead `source`: its descriptor's. */
export const GOOGLE_ADS_ENDPOINT = googleAdsWireNames.name;

const validateGoogleFields = leadFieldValidator(googleAdsLeadFields, 'ignore');

/** Google leads as lead submissions: their source and a sub source of their own, never checked against the account. */
const googleAdsTagging: SubmissionTagging = { source: googleAdsWireNames.leadSource, subSource: () => ({ kind: 'of_source', name: 'lead_form' }) };

/** A delivery as the intake receives it: the lead's fields from its columns and its form's project and campaign. */
export const googleLeadDelivery = (delivery: GoogleDelivery): Delivery => ({
  fields: (form) => (form ? leadFieldsOf(delivery, form) : {}),
  ...(delivery.leadId !== undefined && { platformId: { id: delivery.leadId } }),
  // A form id Google cannot have names no form: refused as an unknown form, without a read.
  connection: { id: delivery.formId !== undefined && isGoogleFormId(delivery.formId) ? delivery.formId : undefined, ...(delivery.key !== undefined && { presentedKey: delivery.key }) },
  ...(delivery.isTest && { refusal: new GoogleTestLeadError() }),
  // What a refusal that names no field records: the form.
  refusalFields: { ...(delivery.formId && { google_form_id: delivery.formId }) },
});

export const googleAdsIntake: IntakeSource & DeclaredAs<'connection-key', 'json'> = {
  name: GOOGLE_ADS_ENDPOINT,
  authentication: { kind: 'connection-key' },
  bodyFormat: 'json',
  answer: googleAdsWireNames.acceptance,
  platformId: googleAdsWireNames.platformId,
  connection: { kind: GOOGLE_FORM_CONNECTION, notConnected: { answer: 'refuse', error: () => new InvalidGoogleKeyError() } },
  lead: { validate: (fields) => validateGoogleFields(fields), submission: (fields) => submissionOf(googleAdsTagging, fields) },
  read: ({ body }) => [googleLeadDelivery(deliveryOf(body ?? {}))],
};
