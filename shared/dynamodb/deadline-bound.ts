/**
 * The DynamoDB client's half of the request deadline (shared/deadline.ts): every attempt is cut off
 * when the request's time is up, and a retry is made only if its back-off and an attempt still fit.
 * Outside a request (no deadline) both behave as the SDK's standard retry mode with the client's own
 * per-attempt timeout.
 *
 * Why not the SDK's own pieces alone: its per-attempt `requestTimeout` is one fixed figure for every
 * call, and its standard retry strategy sleeps the back-off (up to seconds when throttled) without
 * knowing how long the request has left; three attempts of 3 s each, in up to five calls in a row,
 * outlast any function timeout. Middy's `timeoutEarlyInMillis` only races the handler itself, not the
 * key and account reads before it nor the rejection record after it, and abandons a lead write in
 * flight instead of stopping it.
 */
import type { HttpHandlerOptions, RequestHandler, RetryErrorInfo, RetryStrategyV2, RetryToken } from '@smithy/types';
import { currentDeadline, DeadlineExceededError, MIN_ATTEMPT_MS } from '../deadline.ts';

type AnyRequestHandler = RequestHandler<any, any, HttpHandlerOptions>;

/**
 * Wraps the SDK's HTTP handler: each attempt's timeout is the smaller of the client's own and the
 * time the request has left, and no attempt starts without `MIN_ATTEMPT_MS` left. The node handler
 * destroys the socket of an attempt that times out, so nothing keeps waiting after the answer.
 */
export const deadlineBoundHandler = (inner: AnyRequestHandler, attemptTimeoutMs: number): AnyRequestHandler => {
  const bound: AnyRequestHandler = {
    handle: (request, options: HttpHandlerOptions = {}) => {
      const deadline = currentDeadline();
      if (!deadline) return inner.handle(request, options);
      const remaining = deadline.remainingMs();
      if (remaining < MIN_ATTEMPT_MS) return Promise.reject(new DeadlineExceededError('a DynamoDB request'));
      return inner.handle(request, { ...options, requestTimeout: Math.min(options.requestTimeout ?? attemptTimeoutMs, remaining) });
    },
  };
  // The client reads and updates its handler's settings (logger, socket timeout) through these.
  for (const method of ['updateHttpClientConfig', 'httpHandlerConfigs', 'destroy'] as const) {
    const own = (inner as unknown as Record<string, unknown>)[method];
    if (typeof own === 'function') (bound as unknown as Record<string, unknown>)[method] = own.bind(inner);
  }
  if (inner.metadata) bound.metadata = inner.metadata;
  return bound;
};

export interface RetryPolicy {
  /** Attempts of one call, the first included. */
  readonly maxAttempts: number;
  /** Upper bound of the first back-off after a transient error (a timeout, a reset, a 5xx). */
  readonly baseDelayMs: number;
  /** Upper bound of the first back-off after throttling: DynamoDB needs longer to catch up. */
  readonly throttlingBaseDelayMs: number;
}

/** The SDK's standard retry mode (2026 figures): 50 ms, or 1 s when throttled, doubling, full jitter. */
export const STANDARD_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 50, throttlingBaseDelayMs: 1_000 };

const token = (retryCount: number, delayMs: number): RetryToken => ({ getRetryCount: () => retryCount, getRetryDelay: () => delayMs });

/**
 * The SDK's standard retry rules (throttling and transient errors only, exponential back-off with
 * full jitter), refusing a retry whose back-off and an attempt no longer fit in the request's time.
 * The SDK's retry middleware sleeps the returned delay and retries with the same request, so a
 * TransactWriteItems keeps its ClientRequestToken. No shared retry quota: the deadline already bounds
 * what one request can spend on retries.
 */
export class DeadlineRetryStrategy implements RetryStrategyV2 {
  readonly mode = 'standard';
  readonly #policy: RetryPolicy;
  readonly #random: () => number;

  constructor(policy: RetryPolicy = STANDARD_RETRY, random: () => number = Math.random) {
    this.#policy = policy;
    this.#random = random;
  }

  async acquireInitialRetryToken(): Promise<RetryToken> {
    return token(0, 0);
  }

  async refreshRetryTokenForRetry(previous: RetryToken, { errorType }: RetryErrorInfo): Promise<RetryToken> {
    const retries = previous.getRetryCount();
    if (errorType !== 'THROTTLING' && errorType !== 'TRANSIENT') throw new Error('not a retryable error');
    if (retries + 1 >= this.#policy.maxAttempts) throw new Error('no attempts left');
    const base = errorType === 'THROTTLING' ? this.#policy.throttlingBaseDelayMs : this.#policy.baseDelayMs;
    const delayMs = Math.floor(this.#random() * base * 2 ** retries);
    const deadline = currentDeadline();
    if (deadline && !deadline.allows(delayMs)) throw new DeadlineExceededError('a retry');
    return token(retries + 1, delayMs);
  }

  recordSuccess(): void {}
}
