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

export const isDatabaseUnavailable = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const { code, $metadata } = error as Error & { code?: string; $metadata?: { httpStatusCode?: number } };
  return (
    UNAVAILABLE_ERRORS.has(error.name) ||
    (code !== undefined && NETWORK_ERRORS.has(code)) ||
    ($metadata?.httpStatusCode ?? 0) >= 500
  );
};

/** Turns a database outage into the contract's 503; anything else stays what it is (a 500). */
export const asServiceFailure = (error: unknown): unknown =>
  isDatabaseUnavailable(error) ? new ServiceUnavailableError(RETRY_AFTER_SECONDS, { cause: error }) : error;
