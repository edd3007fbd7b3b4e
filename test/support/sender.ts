/**
 * Tests' clients send as a sender is told to (CONTRACT.md section 14): a 503 `Service temporarily
 * unavailable, please retry` is sent again, the same request, after its `Retry-After`, a bounded
 * number of times. On a busy machine that 503 is the right answer to a write that could not finish
 * within its deadline; tests of concurrency judge what must hold on the final answers.
 */

export const UNAVAILABLE_MESSAGE = 'Service temporarily unavailable, please retry';

/** What a test's client answers: a handler's answer (headers a record) or fetch's (a Headers). */
export interface SentAnswer {
  readonly status: number;
  readonly headers?: Record<string, unknown> | Headers;
  readonly body?: any;
}

/** A sender's patience: after this many 503s in a row the last one is the answer (and the test fails on it). */
export const MOST_ATTEMPTS = 10;

export const isRetryable = (answer: SentAnswer): boolean => answer.status === 503 && answer.body?.message === UNAVAILABLE_MESSAGE;

const retryAfterSeconds = (headers: SentAnswer['headers']): number => {
  const value = headers instanceof Headers ? headers.get('retry-after') : (headers?.['retry-after'] ?? headers?.['Retry-After']);
  const seconds = Number(value ?? 1);
  return Number.isFinite(seconds) && seconds >= 1 ? seconds : 1;
};

/**
 * Sends until the answer is not a retryable 503 (or `attempts` were sent): the final answer, and how
 * many 503s came before it (each may have reached the database: a race's bounds count them). The
 * wait is `Retry-After` and up to half as much again, so that the many senders a race's 503s came
 * from do not all come back in the same instant and collide again.
 */
export const sendAsSender = async <A extends SentAnswer>(send: () => Promise<A>, attempts = MOST_ATTEMPTS): Promise<{ answer: A; retried: number }> => {
  for (let retried = 0; ; retried += 1) {
    const answer = await send();
    if (!isRetryable(answer) || retried + 1 >= attempts) return { answer, retried };
    const seconds = retryAfterSeconds(answer.headers);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1_000 * (1 + Math.random() / 2)));
  }
};

/** sendAsSender's final answer alone. */
export const untilAnswered = async <A extends SentAnswer>(send: () => Promise<A>, attempts = MOST_ATTEMPTS): Promise<A> => (await sendAsSender(send, attempts)).answer;
