import type { MiddlewareObj } from '@middy/core';
import { LeadIntakeError } from '../../domain/errors.ts';
import type { IdempotentReplay, RejectionLog } from '../../domain/ports.ts';
import { refusedFields } from '../../domain/rejections.ts';
import { rejectionOf, type Refusal } from '../../domain/submissions.ts';
import type { LogSink } from '../../log.ts';
import type { LeadContext, LeadEvent, LeadResponse } from '../lambda.ts';
import { describe } from './http-envelope.ts';

/**
 * Keeps every 422 an account's senders receive, so its owner can answer "why is this portal lead
 * missing?". Recording never changes the answer, and a failure to record is logged, not answered.
 */
export const rejectionLog = (rejections: RejectionLog, endpoint: string, log: LogSink): MiddlewareObj<LeadEvent, LeadResponse, Error, LeadContext> => ({
  onError: async (request) => {
    const { error, context } = request;
    if (!(error instanceof LeadIntakeError) || error.status !== 422 || !context.account || context.dryRun) return;
    await recordRejection(rejections, log, endpoint, context, {
      reason: error.reason,
      message: error.message,
      fields: refusedFields(error, context.fields ?? {}) ?? {},
    });
  },
});

// The record of a refusal is the domain's (shared/domain/submissions.ts), shared with the platforms' intakes.
export { rejectionOf, type Refusal };

/**
 * Records a refusal for the request's account; a failure to record is logged, never answered. A
 * quarantine answered under an Idempotency-Key that answered already returns that answer instead.
 */
export const recordRejection = async (
  rejections: RejectionLog,
  log: LogSink,
  endpoint: string,
  context: LeadContext,
  refusal: Refusal,
): Promise<IdempotentReplay | undefined> => {
  try {
    return await rejections.record(context.account!.config.id, rejectionOf(endpoint, refusal, context));
  } catch (failure) {
    log({ level: 'warn', requestId: context.requestId, endpoint, message: 'rejection not recorded', error: describe(failure) });
    return undefined;
  }
};
