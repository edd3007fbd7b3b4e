/**
 * The time a request has left, known everywhere below the handler without being passed around: the
 * lead handler runs each request inside its deadline (AsyncLocalStorage), and the DynamoDB client
 * bounds every attempt and every retry by it (shared/dynamodb/deadline-bound.ts). Code outside a
 * request (the admin CLI, seeding, tests reading the store) has no deadline and keeps the client's
 * own per-attempt timeouts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Milliseconds kept back from the function's timeout to turn whatever happened into an answer (the
 * envelope, the log line) and hand it to Lambda: no database wait runs into it. A function given
 * less than 2 s keeps a quarter of its time instead, so that some is left for the database.
 */
export const ANSWER_RESERVE_MS = 500;

/**
 * The shortest database attempt worth starting: a round trip to DynamoDB in the same region takes a
 * few milliseconds, one on a new TLS connection a few tens. With less time left, the request answers
 * rather than starting an attempt that would be cut off.
 */
export const MIN_ATTEMPT_MS = 50;

/** A point in time (epoch milliseconds) by which the work under it must be done. */
export class Deadline {
  readonly at: number;

  constructor(at: number) {
    this.at = at;
  }

  /** The deadline of a request that must be answered `reserveMs` before the function times out. */
  static ofFunction(remainingMs: number, reserveMs = ANSWER_RESERVE_MS, now = Date.now()): Deadline {
    return new Deadline(now + remainingMs - Math.min(reserveMs, remainingMs / 4));
  }

  remainingMs(now = Date.now()): number {
    return this.at - now;
  }

  /** Whether `ms` more of waiting, and then an attempt, still fit. */
  allows(ms: number, now = Date.now()): boolean {
    return this.remainingMs(now) >= ms + MIN_ATTEMPT_MS;
  }
}

const current = new AsyncLocalStorage<Deadline>();

/** Runs `work` (and everything it awaits) under `deadline`; without one, unbounded. */
export const withinDeadline = <T>(deadline: Deadline | undefined, work: () => T): T => (deadline ? current.run(deadline, work) : work());

/** What a Lambda handler is given as its context: all the deadline needs of it. */
interface FunctionContext {
  getRemainingTimeInMillis?: () => number;
}

/**
 * A Lambda handler run, every middleware and call of it included, under its invocation's deadline:
 * the function's remaining time less the answer reserve. Every DynamoDB call under it is bounded by it
 * (shared/dynamodb/deadline-bound.ts), so a database that stops answering gives the handler's own
 * answer, not a platform timeout. Without a Lambda context (a direct call) there is no deadline.
 */
export const withinFunctionDeadline =
  <E, C extends FunctionContext, R>(handler: (event: E, context: C) => Promise<R>) =>
  (event: E, context?: C): Promise<R> =>
    withinDeadline(
      typeof context?.getRemainingTimeInMillis === 'function' ? Deadline.ofFunction(context.getRemainingTimeInMillis()) : undefined,
      () => handler(event, context as C),
    );

/** The deadline of the request being served, if any. */
export const currentDeadline = (): Deadline | undefined => current.getStore();

/**
 * Runs `work` with `ms` kept back from the current deadline, for what must follow it (a write keeps
 * time for the read-back that tells a lost answer from a lost write).
 */
export const keepingBack = <T>(ms: number, work: () => T): T => {
  const deadline = current.getStore();
  return deadline ? current.run(new Deadline(deadline.at - ms), work) : work();
};

/** No time is left for a database attempt before the request must be answered. */
export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';
  constructor(what: string) {
    super(`no time left for ${what} before the request must be answered`);
  }
}
