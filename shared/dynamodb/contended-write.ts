/**
 * The one way the service sends a write that DynamoDB may cancel for a concurrent writer: a lead's
 * transaction, a rejection or quarantine record (with its browser key's minute counter), a Google
 * form's guard, an erasure step, an admin change. CONTRACT.md section 14: a record the service answered
 * for is stored; a write that conflicts is retried within the request's deadline, and if it still
 * cannot be stored the answer is 503 with `Retry-After`, never a 200 after a swallowed error nor a 500.
 *
 * Real DynamoDB cancels one of two transactions that touch one item at once (`TransactionConflict`
 * among the cancellation reasons; DynamoDB Local never does), answers a single-item write that meets a
 * transaction in flight `TransactionConflictException`, and cancels a transaction one of whose items
 * is throttled (`ThrottlingError`, `ProvisionedThroughputExceeded` reasons). The SDK retries none of
 * these (it retries throttling *exceptions*, with its own back-off, under the request's deadline:
 * deadline-bound.ts); this loop retries them with jittered back-off while the request has time.
 */
import { currentDeadline, keepingBack } from '../deadline.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { asServiceFailure, RETRY_AFTER_SECONDS } from './failures.ts';
import { cancellationReasons, readBackTime, type CancellationReason } from './requests.ts';

export interface TransactionRetryPolicy {
  /** Attempts of a write that DynamoDB cancels for a conflict with a concurrent writer, or throttles. */
  readonly attempts: number;
  /** Upper bound of the first back-off; it doubles per attempt, and the wait is drawn below it. */
  readonly baseDelayMs: number;
}

/** Pinned by test/reliability/faults-below-the-sdk.test.ts: five attempts of a conflicting transaction. */
export const DEFAULT_RETRY: TransactionRetryPolicy = { attempts: 5, baseDelayMs: 20 };

/** Cancellation reasons that say "not now", not "never": another attempt may be applied. */
const PASSING_REASONS = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

/** A single-item write that met a transaction in flight on its item. */
const CONFLICT_ERRORS = new Set(['TransactionConflictException']);

export interface ContendedWrite<R> {
  /** Sends the write once (a new TransactWriteItems per attempt: a cancelled one wrote nothing). */
  readonly send: () => Promise<unknown>;
  /**
   * Reads a cancelled transaction's reasons: a value when the cancellation is an answer (a duplicate, a
   * used key, a full minute, a failed guard: it may also throw), undefined to let the loop decide.
   */
  readonly refusal?: (reasons: readonly CancellationReason[]) => R | undefined | Promise<R | undefined>;
  /**
   * Reads back what the write stores, before a 503: a write whose answer was lost (or whose earlier
   * attempt is still running) may have been applied, and a sender told 503 would write it again. The
   * write keeps `readBackTime()` of the request's time for it.
   */
  readonly isApplied?: () => Promise<boolean>;
  readonly retry?: TransactionRetryPolicy;
}

export type Stored = { readonly kind: 'stored' };
const STORED: Stored = { kind: 'stored' };

/**
 * Sends `send` until it is stored or refused. Returns `{kind: 'stored'}`, or what `refusal` made of a
 * cancellation; throws ServiceUnavailableError (503) when DynamoDB kept conflicting, throttling or out
 * of reach and the read-back found nothing, and anything else unchanged (a defect: 500).
 */
export const contendedWrite = async <R = never>({ send, refusal, isApplied, retry = DEFAULT_RETRY }: ContendedWrite<R>): Promise<Stored | R> => {
  const reserve = () => (isApplied ? readBackTime() : 0);
  for (let attempt = 1; ; attempt += 1) {
    let failure: unknown;
    try {
      await keepingBack(reserve(), send);
      return STORED;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons) {
        const refused = await refusal?.(reasons);
        if (refused !== undefined) return refused;
      }
      const passing = reasons ? reasons.some((reason) => PASSING_REASONS.has(reason.Code ?? '')) : CONFLICT_ERRORS.has(String((error as Error | null)?.name));
      if (passing && attempt < retry.attempts) {
        const delay = Math.random() * retry.baseDelayMs * 2 ** (attempt - 1);
        if (currentDeadline()?.allows(delay + reserve()) ?? true) {
          await sleep(delay);
          continue;
        }
      }
      failure = passing ? new ServiceUnavailableError(RETRY_AFTER_SECONDS, { cause: error }) : reasons ? error : asServiceFailure(error);
    }
    if (failure instanceof ServiceUnavailableError && isApplied && (await isApplied().catch(() => false))) return STORED;
    throw failure;
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
