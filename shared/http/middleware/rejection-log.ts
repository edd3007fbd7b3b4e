import type { MiddlewareObj } from '@middy/core';
import { LeadIntakeError } from '../../domain/errors.ts';
import { quarantinedSubmission, type LeadSubmission } from '../../domain/create-lead.ts';
import type { LeadRecord } from '../../domain/lead.ts';
import type { IdempotentReplay, Rejection, RejectionLog } from '../../domain/ports.ts';
import { identifiersOfSubmission } from '../../domain/person-data.ts';
import { refusedFields } from '../../domain/rejections.ts';
import { JsonNumber } from '../../schemas/json-number.ts';
import { maskMobile } from '../../log.ts';
import type { LeadContext, LeadEvent, LeadResponse } from '../lambda.ts';

/**
 * Keeps every 422 an account's senders receive, so its owner can answer "why is this portal lead
 * missing?". A refusal the service answers for is recorded (CONTRACT.md section 14): when its record
 * cannot be stored (the database kept conflicting or out of reach), the answer is that failure's
 * (503 with Retry-After), set as the request's error for the envelope to answer, never the 422.
 */
export const rejectionLog = (rejections: RejectionLog, endpoint: string): MiddlewareObj<LeadEvent, LeadResponse, Error, LeadContext> => ({
  onError: async (request) => {
    const { error, context } = request;
    if (!(error instanceof LeadIntakeError) || error.status !== 422 || !context.account || context.dryRun) return;
    try {
      await recordRejection(rejections, endpoint, context, {
        reason: error.reason,
        message: error.message,
        fields: refusedFields(error, context.fields ?? {}) ?? {},
      });
    } catch (failure) {
      request.error = failure instanceof Error ? failure : new Error(String(failure));
    }
  },
});

/** What was refused, in the rejection's words. */
export interface Refusal {
  readonly reason: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
  /** A quarantine: the validated submission, kept whole so a person can release it. */
  readonly submission?: LeadSubmission;
  /** The platform's id of the lead that was refused (Google Ads lead forms; a call's provider and call id). */
  readonly platformIds?: Pick<Rejection, 'google_lead_id' | 'provider' | 'call_id'>;
  /** A quarantine answered as a new lead: the lead of that answer (kept under the request's key, when it had one). */
  readonly answered?: LeadRecord;
}

/**
/**
 * Records a refusal for the request's account. A failure to record propagates (a 503 when the database
 * could not take it after the retries of shared/dynamodb/contended-write.ts): the sender is never told
 * 200 about a submission the service did not keep. A quarantine answered under an Idempotency-Key that
 * answered already returns that answer instead.
 */
export const recordRejection = (rejections: RejectionLog, endpoint: string, context: LeadContext, refusal: Refusal): Promise<IdempotentReplay | undefined> =>
  rejections.record(context.account!.config.id, rejectionOf(endpoint, refusal, context));

/** The record of a refusal: the request's id, the refusal, and the mobile's last four digits, never more. */
export const rejectionOf = (endpoint: string, refusal: Refusal, context: Pick<LeadContext, 'requestId' | 'fields' | 'body' | 'account' | 'idempotency'>): Rejection => {
  const mobile = context.fields?.mobile_number ?? digitsOf(context.body?.mobile_number);
  // Requests without an API key (Google's webhook) have no key to name or to bound.
  const key = context.account?.key;
  return {
    at: new Date().toISOString(),
    requestId: context.requestId,
    endpoint,
    reason: refusal.reason,
    message: refusal.message,
    ...(mobile && mobile.length >= 4 && { mobile: maskMobile(mobile) }),
    fields: refusal.fields,
    ...(key?.keyId !== undefined && { key_id: key.keyId }),
    // A browser key is public: its records are bounded per key and minute (CONTRACT.md section 11).
    ...(key?.origins !== undefined && { browserKey: true }),
    // A quarantine keeps the request's fields under their request names, and its Idempotency-Key (CONTRACT.md sections 11 and 14).
    ...(refusal.submission && { submission: quarantinedSubmission(refusal.submission) }),
    ...(refusal.submission && context.idempotency && { idempotency_key: context.idempotency.key, idempotency_request_hash: context.idempotency.requestHash }),
    ...(refusal.answered && { answered: refusal.answered }),
    // Found again by access and erasure (CONTRACT.md section 12): the validated fields, else what the body held.
    person: identifiersOfSubmission(context.fields ?? plainText(context.body ?? {})),
    ...refusal.platformIds,
  };
};

/** Mobiles sent as JSON numbers are read as their digits, as section 2 reads them. */
const plainText = (body: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(Object.entries(body).map(([name, value]) => [name, value instanceof JsonNumber ? value.source : value]));

const digitsOf = (value: unknown): string | undefined => (typeof value === 'string' ? value.replace(/\D/g, '') : undefined);
