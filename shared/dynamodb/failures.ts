import { ServiceUnavailableError } from '../domain/errors.ts';

/** Errors that mean "DynamoDB is throttling or out of reach", after the SDK's own retries. */
const UNAVAILABLE_ERRORS = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  // The request's time ran out before a call or its retry could be made (shared/deadline.ts).
  'DeadlineExceededError',
  // A retry of a TransactWriteItems found its first attempt still running: its outcome is unknown.
  'TransactionInProgressException',
]);

const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Seconds a sender should wait before retrying after a 503. */
export const RETRY_AFTER_SECONDS = 1;

/** A socket error's code where the SDK only quotes it in a message ("connect ECONNREFUSED ..."). */
export const NETWORK_MESSAGE = new RegExp(`\\b(${[...NETWORK_ERRORS].join('|')})\\b`);

/** An error read by shape (see isDatabaseUnavailable). */
export interface ErrorShape {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number };
  readonly cause?: unknown;
}

/**
 * Read by shape, not by `instanceof`: the SDK wraps some socket errors ("AWS SDK error wrapper for
 * Error: connect ECONNREFUSED ...") and errors may come from another realm, so the error's name, code,
 * HTTP status, message and cause are what tell an outage apart.
 */
export const isDatabaseUnavailable = (error: unknown, depth = 0): boolean => {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { name, code, message, $metadata, cause } = error as ErrorShape;
  return (
    (typeof name === 'string' && UNAVAILABLE_ERRORS.has(name)) ||
    (typeof code === 'string' && NETWORK_ERRORS.has(code)) ||
    ($metadata?.httpStatusCode ?? 0) >= 500 ||
    (typeof message === 'string' && NETWORK_MESSAGE.test(message)) ||
    isDatabaseUnavailable(cause, depth + 1)
  );
};

/** Turns a database outage into the contract's 503; anything else stays what it is (a 500). */
export const asServiceFailure = (error: unknown): unknown =>
  isDatabaseUnavailable(error) ? new ServiceUnavailableError(RETRY_AFTER_SECONDS, { cause: error }) : error;
