/**
 * One Google Ads lead form delivery becomes one lead (CONTRACT.md section 10), through the same
 * domain code as every endpoint: the social endpoint's rules for the common fields, the account's
 * duplicate setting, and createLead with Google's lead_id as idempotency key in the lead's own
 * transaction, so a redelivery, or simultaneous deliveries, of one lead_id store one lead.
 *
 * Whatever cannot become a lead (a test lead, a duplicate under `ignore`, a validation failure, a
 * retired project or campaign) is recorded in the account's rejection log with its google_lead_id,
 * claimed like a lead (recordRefusal), so the first delivery of a lead_id decides: of its repeated or
 * simultaneous deliveries at most one lead or one record is kept (CONTRACT.md section 14). The caller
 * answers 200 all the same, since no retry by Google could fix it. A database outage, including one
 * that keeps the rejection from being recorded, propagates: the caller answers 503, and Google's retry
 * stores the lead once.
 *
 * Every write a delivery makes carries the form's guard (ConnectionGuard): a key rotated, or a form
 * removed or moved, since the container cached the form stores nothing (ConnectionChangedError; the
 * webhook reads the form afresh, receivedAtOnce).
 */
import type { AccountDirectory } from '../domain/account-directory.ts';
import { createLead, type CreateLeadDependencies } from '../domain/create-lead.ts';
import { ClientNotFoundError, IdempotencyKeyReusedError, isRejection, LeadErasedError } from '../domain/errors.ts';
import { GoogleTestLeadError, InvalidGoogleKeyError } from './errors.ts';
import type { LeadRecord } from '../domain/lead.ts';
import { platformLeadIdempotency, recordRefusal } from '../domain/platform-leads.ts';
import type { ConnectionGuard, GoogleFormConnection, RejectionLog } from '../domain/ports.ts';
import { refusedFields } from '../domain/rejections.ts';
import { rejectionOf, submissionOf, type SubmissionTagging } from '../domain/submissions.ts';
import { leadFieldValidator } from '../domain/field-validation.ts';
import { googleAdsLeadFields } from './lead-fields.ts';
import type { ValidatedFields } from '../schemas/validate.ts';
import { leadFieldsOf, type GoogleDelivery } from './delivery.ts';
import { googleAdsWireNames, googleFormConnectionKey } from './wire-names.ts';

/** The endpoint name Google leads carry in logs, metrics and rejection records, and their lead `source`: its descriptor's. */
export const GOOGLE_ADS_ENDPOINT = googleAdsWireNames.name;
const { field: LEAD_ID_FIELD, idempotencyPrefix: LEAD_ID_PREFIX } = googleAdsWireNames.platformId;

export interface GoogleLeadDependencies extends CreateLeadDependencies {
  readonly directory: AccountDirectory;
  readonly rejections: RejectionLog;
}

/** The delivery's request as it goes: its id, and the validated fields for its log line (masked there). */
export interface GoogleLeadRequest {
  readonly requestId: string;
  fields?: ValidatedFields;
}

export type GoogleLeadOutcome =
  | { readonly kind: 'created'; readonly lead: LeadRecord; readonly replayed: boolean }
  | { readonly kind: 'rejected'; readonly reason: string }
  /** An earlier delivery of this lead_id decided already (a lead or a record): nothing changed. */
  | { readonly kind: 'already_decided' };

const validateGoogleFields = leadFieldValidator(googleAdsLeadFields, 'ignore');

/** Google leads as lead submissions: their source and a sub source of their own, never checked against the account. */
const googleAdsTagging: SubmissionTagging = { source: googleAdsWireNames.leadSource, subSource: () => ({ kind: 'of_source', name: 'lead_form' }) };

export const receiveGoogleLead = async (
  delivery: GoogleDelivery,
  form: GoogleFormConnection,
  request: GoogleLeadRequest,
  deps: GoogleLeadDependencies,
): Promise<GoogleLeadOutcome> => {
  const body = leadFieldsOf(delivery, form);
  // Whatever this delivery writes is refused if the form was rotated, removed or moved since it was read.
  const guard: ConnectionGuard = { ...form, shape: googleFormConnectionKey.shape };
  // The lead_id's one claim, for its lead and for its record alike (validation refuses a delivery without one).
  const claim = delivery.leadId === undefined ? undefined : platformLeadIdempotency(LEAD_ID_PREFIX, GOOGLE_ADS_ENDPOINT, delivery.leadId);
  try {
    if (delivery.isTest) throw new GoogleTestLeadError();
    request.fields = validateGoogleFields(body);
    const account = await deps.directory.account(form.accountId);
    const { lead, replayed } = await createLead(submissionOf(googleAdsTagging, request.fields), account, deps, { idempotency: claim!, guard });
    return { kind: 'created', lead, replayed };
  } catch (error) {
    // The form's account is gone: the form is connected to no account.
    if (error instanceof ClientNotFoundError) throw new InvalidGoogleKeyError();
    // The lead_id's first delivery was kept as a rejection record: it decided.
    if (error instanceof IdempotencyKeyReusedError) return { kind: 'already_decided' };
    // A redelivery of a lead its person had erased (CONTRACT.md section 12): received, and nothing recorded about them again.
    if (error instanceof LeadErasedError) return { kind: 'rejected', reason: error.reason };
    if (!isRejection(error)) throw error;
    const fields = refusedFields(error, request.fields ?? {}) ?? { ...(delivery.formId && { google_form_id: delivery.formId }) };
    const rejection = rejectionOf(
      GOOGLE_ADS_ENDPOINT,
      { reason: error.reason, message: error.message, fields, ...(delivery.leadId && { platformIds: { [LEAD_ID_FIELD]: delivery.leadId } }) },
      { requestId: request.requestId, body, ...(request.fields && { fields: request.fields }) },
    );
    const kept = await recordRefusal(deps.rejections, form.accountId, rejection, claim, guard);
    return kept === 'recorded' ? { kind: 'rejected', reason: error.reason } : { kind: 'already_decided' };
  }
};
