import { describe, expect, it } from '@jest/globals';
import type { HttpHandlerOptions, RequestHandler, RetryErrorType } from '@smithy/types';
import { functionTimeoutMs } from '../../scripts/local/environment.ts';
import { ANSWER_RESERVE_MS, Deadline, keepingBack, MIN_ATTEMPT_MS, currentDeadline, withinDeadline } from '../../shared/deadline.ts';
import { deadlineBoundHandler, DeadlineRetryStrategy } from '../../shared/dynamodb/deadline-bound.ts';

const retry = async (strategy: DeadlineRetryStrategy, retries: number, errorType: RetryErrorType) => {
  let token = await strategy.acquireInitialRetryToken();
  for (let i = 0; i < retries; i += 1) token = await strategy.refreshRetryTokenForRetry(token, { errorType });
  return token;
};

describe('a request deadline', () => {
  it("is the function's remaining time less the reserve to answer", () => {
    const deadline = Deadline.ofFunction(10_000, ANSWER_RESERVE_MS, 1_000);
    expect(deadline.at).toBe(1_000 + 10_000 - ANSWER_RESERVE_MS);
    expect(deadline.remainingMs(2_000)).toBe(10_000 - ANSWER_RESERVE_MS - 1_000);
  });

  it('keeps a quarter of a short function timeout to answer, so the database still gets time', () => {
    expect(Deadline.ofFunction(1_000, ANSWER_RESERVE_MS, 0).at).toBe(750);
    expect(Deadline.ofFunction(2_000, ANSWER_RESERVE_MS, 0).at).toBe(1_500);
  });

  it('allows a wait only if an attempt still fits after it', () => {
    const deadline = new Deadline(1_000);
    expect(deadline.allows(900 - MIN_ATTEMPT_MS, 100)).toBe(true);
    expect(deadline.allows(901 - MIN_ATTEMPT_MS, 100)).toBe(false);
  });

  it('is seen by everything awaited under it, and kept back for what must follow', async () => {
    const deadline = new Deadline(Date.now() + 5_000);
    await withinDeadline(deadline, async () => {
      await Promise.resolve();
      expect(currentDeadline()).toBe(deadline);
      await keepingBack(1_000, async () => expect(currentDeadline()!.at).toBe(deadline.at - 1_000));
      expect(currentDeadline()).toBe(deadline);
    });
    expect(currentDeadline()).toBeUndefined();
  });
});

describe("the DynamoDB client's retry strategy", () => {
  const policy = { maxAttempts: 3, baseDelayMs: 50, throttlingBaseDelayMs: 1_000 };

  it('retries throttling and transient errors, at most twice, never client or server errors', async () => {
    const strategy = new DeadlineRetryStrategy(policy, () => 0.5);
    expect((await retry(strategy, 2, 'TRANSIENT')).getRetryCount()).toBe(2);
    await expect(retry(strategy, 3, 'THROTTLING')).rejects.toThrow('no attempts left');
    await expect(retry(strategy, 1, 'CLIENT_ERROR')).rejects.toThrow('not a retryable error');
    await expect(retry(strategy, 1, 'SERVER_ERROR')).rejects.toThrow('not a retryable error');
  });

  it('backs off exponentially with full jitter, longer after throttling', async () => {
    const strategy = new DeadlineRetryStrategy(policy, () => 0.5);
    expect((await retry(strategy, 1, 'TRANSIENT')).getRetryDelay()).toBe(25);
    expect((await retry(strategy, 2, 'TRANSIENT')).getRetryDelay()).toBe(50);
    expect((await retry(strategy, 1, 'THROTTLING')).getRetryDelay()).toBe(500);
  });

  it('refuses a retry whose back-off and an attempt no longer fit in the request', async () => {
    const strategy = new DeadlineRetryStrategy(policy, () => 0.5);
    await withinDeadline(new Deadline(Date.now() + 400), async () => {
      expect((await retry(strategy, 1, 'TRANSIENT')).getRetryDelay()).toBe(25);
      await expect(retry(strategy, 1, 'THROTTLING')).rejects.toThrow('no time left for a retry');
    });
  });
});

describe("the DynamoDB client's request handler", () => {
  const recording = () => {
    const options: HttpHandlerOptions[] = [];
    const inner = { handle: async (_request: unknown, given: HttpHandlerOptions = {}) => (options.push(given), { response: {} }) } as unknown as RequestHandler<any, any, HttpHandlerOptions>;
    return { handler: deadlineBoundHandler(inner, 3_000), options };
  };

  it("leaves an attempt outside a request to the client's own timeout", async () => {
    const { handler, options } = recording();
    await handler.handle({}, {});
    expect(options).toEqual([{}]);
  });

  it('cuts an attempt off when the request must be answered', async () => {
    const { handler, options } = recording();
    await withinDeadline(new Deadline(Date.now() + 800), () => handler.handle({}, {}));
    await withinDeadline(new Deadline(Date.now() + 60_000), () => handler.handle({}, {}));
    expect(options[0]!.requestTimeout).toBeLessThanOrEqual(800);
    expect(options[0]!.requestTimeout).toBeGreaterThan(700);
    expect(options[1]!.requestTimeout).toBe(3_000);
  });

  it('starts no attempt without time for one', async () => {
    const { handler, options } = recording();
    await expect(withinDeadline(new Deadline(Date.now() + MIN_ATTEMPT_MS - 10), () => handler.handle({}, {}))).rejects.toMatchObject({ name: 'DeadlineExceededError' });
    expect(options).toEqual([]);
  });
});

describe('FUNCTION_TIMEOUT_SECONDS of the local run', () => {
  it("defaults to the stack's 10 s", () => {
    expect(functionTimeoutMs({})).toBe(10_000);
    expect(functionTimeoutMs({ FUNCTION_TIMEOUT_SECONDS: '' })).toBe(10_000);
  });

  it('takes seconds, fractions included', () => {
    expect(functionTimeoutMs({ FUNCTION_TIMEOUT_SECONDS: '3' })).toBe(3_000);
    expect(functionTimeoutMs({ FUNCTION_TIMEOUT_SECONDS: '1.5' })).toBe(1_500);
  });

  it.each(['abc', '0', '-2', '901'])('refuses %s, naming the variable', (value) => {
    expect(() => functionTimeoutMs({ FUNCTION_TIMEOUT_SECONDS: value })).toThrow(`FUNCTION_TIMEOUT_SECONDS must be a number of seconds from 0.5 to 900, not "${value}"`);
  });
});
