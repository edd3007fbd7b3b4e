import { LeadIntakeError } from '../../domain/errors.ts';
import type { IdempotentReplay } from '../../domain/ports/leads.ts';
import type { RejectionLog } from '../../domain/ports/rejections.ts';
import { refusedFields } from '../../domain/rejections.ts';
import { rejectionOf, type Refusal } from '../../domain/submissions.ts';
import { step, type LeadStep } from '../lead-chain.ts';
import type { Authenticated, LeadContext } from '../lambda.ts';

/**
 * Keeps every 422 an account's senders receive, so its owner can answer "why is this portal lead
 * missing?". A refusal the service answers for is recorded (CONTRACT.md section 14): when its record
 * cannot be stored (the database kept conflicting or out of reach), the answer is that failure's
 * (503 with Retry-After), set as the request's error for the envelope to answer, never the 422.
 */
export const rejectionLog = (rejections: RejectionLog, endpoint: string): LeadStep<LeadContext, object> =>
  step<LeadContext>({
  onError: async (request) => {
    const { error, context } = request;
    if (!(error instanceof LeadIntakeError) || error.status !== 422 || !context.account || context.dryRun) return;
    try {
      await recordRejection(rejections, endpoint, { ...context, account: context.account }, {
        reason: error.reason,
        message: error.message,
        fields: refusedFields(error, context.fields ?? {}) ?? {},
      });
    } catch (failure) {
      request.error = failure instanceof Error ? failure : new Error(String(failure));
    }
  },
  });

// The record of a refusal is the domain's (shared/domain/submissions.ts), shared with the platforms' intakes.
export { rejectionOf, type Refusal };

/**
/**
 * Records a refusal for the request's account. A failure to record propagates (a 503 when the database
 * could not take it after the retries of shared/dynamodb/contended-write.ts): the sender is never told
 * 200 about a submission the service did not keep. A quarantine answered under an Idempotency-Key that
 * answered already returns that answer instead.
 */
export const recordRejection = (rejections: RejectionLog, endpoint: string, context: LeadContext & Authenticated, refusal: Refusal): Promise<IdempotentReplay | undefined> =>
  rejections.record(context.account.config.id, rejectionOf(endpoint, refusal, context));
