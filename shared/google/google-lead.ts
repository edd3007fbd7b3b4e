/**
 * One Google Ads lead form delivery becomes one lead (CONTRACT.md section 10), through the same
 * domain code as every endpoint: the social endpoint's rules for the common fields, the account's
 * duplicate setting, and createLead with Google's lead_id as idempotency key in the lead's own
 * transaction, so a redelivery, or simultaneous deliveries, of one lead_id store one lead.
 *
 * Whatever cannot become a lead (a test lead, a duplicate under `ignore`, a validation failure, a
 * retired project or campaign) is recorded in the account's rejection log with its google_lead_id;
 * the caller answers 200 all the same, since no retry by Google could fix it. A database outage,
 * including one that keeps the rejection from being recorded, propagates: the caller answers 503,
 * and Google's retry stores the lead once.
 *
 * Every write a delivery makes carries the form's guard (ConnectionGuard): a key rotated, or a form
 * removed, since the container cached the form stores nothing (ConnectionChangedError, answered 401).
 */
import type { AccountDirectory } from '../domain/account-directory.ts';
import { createLead, type CreateLeadDependencies } from '../domain/create-lead.ts';
import { ClientNotFoundError, isRejection, LeadErasedError } from '../domain/errors.ts';
import { GoogleTestLeadError, InvalidGoogleKeyError } from '../domain/google-errors.ts';
import type { LeadRecord } from '../domain/lead.ts';
import { platformLeadIdempotency } from '../domain/platform-leads.ts';
import type { ConnectionGuard, GoogleFormConnection, RejectionLog } from '../domain/ports.ts';
import { refusedFields } from '../domain/rejections.ts';
import { rejectionOf, submissionOf, type SubmissionTagging } from '../domain/submissions.ts';
import { leadFieldValidator } from '../domain/field-validation.ts';
import { googleAdsLeadFields } from './lead-fields.ts';
import type { ValidatedFields } from '../schemas/validate.ts';
import { leadFieldsOf, type GoogleDelivery } from './delivery.ts';
import { googleAdsWireNames } from './wire-names.ts';

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
  | { readonly kind: 'rejected'; readonly reason: string };

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
  // Whatever this delivery writes is refused if the form was rotated or removed since its key was checked.
  const guard: ConnectionGuard = form;
  try {
    if (delivery.isTest) throw new GoogleTestLeadError();
    request.fields = validateGoogleFields(body);
    const account = await deps.directory.account(form.accountId);
    const { lead, replayed } = await createLead(submissionOf(googleAdsTagging, request.fields), account, deps, {
      idempotency: platformLeadIdempotency(LEAD_ID_PREFIX, GOOGLE_ADS_ENDPOINT, delivery.leadId!),
      guard,
    });
    return { kind: 'created', lead, replayed };
  } catch (error) {
    // The form's account is gone: the form is connected to no account.
    if (error instanceof ClientNotFoundError) throw new InvalidGoogleKeyError();
    // A redelivery of a lead its person had erased (CONTRACT.md section 12): received, and nothing recorded about them again.
    if (error instanceof LeadErasedError) return { kind: 'rejected', reason: error.reason };
    if (!isRejection(error)) throw error;
    const fields = refusedFields(error, request.fields ?? {}) ?? { ...(delivery.formId && { google_form_id: delivery.formId }) };
    await deps.rejections.record(
      form.accountId,
      rejectionOf(
        GOOGLE_ADS_ENDPOINT,
        { reason: error.reason, message: error.message, fields, ...(delivery.leadId && { platformIds: { [LEAD_ID_FIELD]: delivery.leadId } }) },
        { requestId: request.requestId, body, ...(request.fields && { fields: request.fields }) },
      ),
      guard,
    );
    return { kind: 'rejected', reason: error.reason };
  }
};
