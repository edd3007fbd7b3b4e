/**
 * What an intake received, in the domain's terms, whatever carried it (an endpoint's request, a
 * platform's delivery): the lead submission its validated fields make, and the record of a refusal.
 * Written once for every source; nothing here knows of HTTP.
 */
import { commonLeadFields } from '../schemas/lead-fields.ts';
import { JsonNumber } from '../schemas/json-number.ts';
import { textOf, type ValidatedFields } from '../schemas/validate.ts';
import { quarantinedSubmission } from './create-lead.ts';
import type { ApiKeyGrant, LeadFieldValue, LeadRecord, LeadSource, LeadSubmission, SubSourceClaim } from './lead.ts';
import { identifiersOfSubmission, mobileTraceOf } from './person-data.ts';
import type { IdempotencyClaim } from './ports/leads.ts';
import type { PlatformIds, Rejection } from './ports/rejections.ts';

/** How a source tags its submissions: its lead `source`, and the sub source its fields claim. */
export interface SubmissionTagging {
  readonly source: LeadSource;
  /** The sub source the lead claims, checked against the account's configuration unless `of_source`. */
  readonly subSource: (fields: ValidatedFields) => SubSourceClaim | null;
}

/** How a lead endpoint's leads are tagged (shared/endpoints.ts): its leads' source and its sub source. */
export const taggingOf = (endpoint: { readonly leadSource: LeadSource; readonly subSource: SubmissionTagging['subSource'] }): SubmissionTagging => ({ source: endpoint.leadSource, subSource: endpoint.subSource });

/** The common fields the submission names itself; `consent` (section 18) is kept with the endpoint's own fields, under its request name. */
const COMMON_FIELDS = new Set(Object.keys(commonLeadFields).filter((field) => field !== 'consent'));

/** What a source received, in the domain's terms: common fields, sub source, and the source's details. */
export const submissionOf = (tagging: SubmissionTagging, fields: ValidatedFields): LeadSubmission => {
  const details: Record<string, LeadFieldValue> = {};
  for (const [field, value] of Object.entries(fields)) {
    // The Website sub source is stored as the lead's sub_source, not as a detail.
    if (!COMMON_FIELDS.has(field) && field !== 'sub_source') details[field] = value;
  }
  return {
    source: tagging.source,
    subSource: tagging.subSource(fields),
    name: textOf(fields, 'name')!,
    mobile_number: textOf(fields, 'mobile_number')!,
    ...(textOf(fields, 'email') !== undefined && { email: textOf(fields, 'email') }),
    ...(textOf(fields, 'alternate_number') !== undefined && { alternate_number: textOf(fields, 'alternate_number') }),
    projectID: textOf(fields, 'projectID')!,
    campaignID: textOf(fields, 'campaignID')!,
    details,
  };
};

export type { PlatformIds } from './ports/rejections.ts';

/** What was refused, in the rejection's words. */
export interface Refusal {
  readonly reason: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
  /** A quarantine: the validated submission, kept whole so a person can release it. */
  readonly submission?: LeadSubmission;
  /** The platform's ids of the delivery that was refused, under its descriptor's names (`platformId`). */
  readonly platformIds?: PlatformIds;
  /** A quarantine answered as a new lead: the lead of that answer (kept under the request's key, when it had one). */
  readonly answered?: LeadRecord;
}

/** The request a refusal answers, as far as its record needs it. */
export interface RefusedRequest {
  readonly requestId: string;
  /** The validated fields, when validation got that far. */
  readonly fields?: ValidatedFields;
  /** The body as received. */
  readonly body?: Readonly<Record<string, unknown>>;
  /** The API key the request came with; none for a platform's delivery (a Google form's). */
  readonly account?: { readonly key?: Pick<ApiKeyGrant, 'keyId' | 'origins'> };
  /** The request's Idempotency-Key and the digest of what it was sent with. */
  readonly idempotency?: IdempotencyClaim;
}

/**
 * The record of a refusal: the request's id, the refusal, and the last four digits of the person's
 * mobile (never more, and none of a number that names no one: mobileTraceOf).
 */
export const rejectionOf = (endpoint: string, refusal: Refusal, request: RefusedRequest): Rejection => {
  // Found again by access and erasure (CONTRACT.md section 12): the validated fields, else what the body held.
  const person = identifiersOfSubmission(request.fields ?? plainText(request.body ?? {}));
  // Requests without an API key (Google's webhook) have no key to name or to bound.
  const key = request.account?.key;
  return {
    at: new Date().toISOString(),
    requestId: request.requestId,
    endpoint,
    reason: refusal.reason,
    message: refusal.message,
    ...mobileTraceOf(person),
    fields: refusal.fields,
    ...(key?.keyId !== undefined && { key_id: key.keyId }),
    // A browser key is public: its records are bounded per key and minute (CONTRACT.md section 11).
    ...(key?.origins !== undefined && { browserKey: true }),
    // A quarantine keeps the request's fields under their request names, and its Idempotency-Key (CONTRACT.md sections 11 and 14).
    ...(refusal.submission && { submission: quarantinedSubmission(refusal.submission) }),
    ...(refusal.submission && request.idempotency && { idempotency_key: request.idempotency.key, idempotency_request_hash: request.idempotency.requestHash }),
    ...(refusal.answered && { answered: refusal.answered }),
    person,
    ...(refusal.platformIds && { platformIds: refusal.platformIds }),
  };
};

/** Mobiles sent as JSON numbers are read as their digits, as section 2 reads them. */
const plainText = (body: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(Object.entries(body).map(([name, value]) => [name, value instanceof JsonNumber ? value.source : value]));
