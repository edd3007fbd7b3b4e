/**
 * A Middy chain whose context says what its steps have set (issue 33: context members set by the step
 * that owns them and typed as present after it, never read with `!`). Middy's own `.use` keeps one
 * context type for the whole chain, so every member a middleware sets had to be optional and every
 * later reader asserted it. Here a step (LeadStep) names what it needs before it (`In`) and what it
 * adds (`Add`); `use` accepts it only on a chain whose context has what it needs, and returns a chain
 * whose context has what it added, down to the handler.
 */
import middy from '@middy/core';
import type { MiddlewareObj, Request } from '@middy/core';
import type { LeadContext, LeadEvent, LeadResponse } from './lambda.ts';

type Middleware<C> = MiddlewareObj<LeadEvent, LeadResponse, Error, C>;

/**
 * Middlewares that, run on a context with `In`, leave it with `Add` too: an array Middy runs in order.
 * Their `before` sees `Add` as not yet set (`Partial`), and sets it; their `onError` may run before
 * they did. `types` is for the compiler only: a step needing `In` runs on any context that has it
 * (contravariant), and adds `Add`.
 */
export type LeadStep<In extends LeadContext, Add> = readonly Middleware<In & Partial<Add>>[] & {
  readonly types?: { readonly needs: (context: In) => void; readonly adds: Add };
};

/** A step of these middlewares (one or several, run in order): `step<In, Add>(middleware)`. */
export const step = <In extends LeadContext, Add = object>(...middlewares: Middleware<In & Partial<Add>>[]): LeadStep<In, Add> => middlewares;

/** Two steps as one: `second` runs after `first`, on what `first` added. */
export const andThen = <In extends LeadContext, A, B>(first: LeadStep<In, A>, second: LeadStep<In & A, B>): LeadStep<In, A & B> =>
  // Middy runs them in this order on one context: `second` sees what `first` set.
  [...first, ...second] as unknown as LeadStep<In, A & B>;

/** A step that runs only when `enabled`: what it adds may then be absent. */
export const stepWhen = <In extends LeadContext, Add>(enabled: boolean, of: () => LeadStep<In, Add>): LeadStep<In, Partial<Add>> =>
  enabled ? (of() as LeadStep<In, Partial<Add>>) : [];

/**
 * Middy's chain as the compiler sees it here: `use` takes a step on a context that has what it needs
 * and returns the chain with what it added; the handler sees every step's additions.
 */
export interface LeadChain<C extends LeadContext> {
  use<Add>(next: LeadStep<C, Add>): LeadChain<C & Add>;
  handler(run: (event: LeadEvent, context: C) => Promise<LeadResponse>): (event: LeadEvent, context: LeadContext) => Promise<LeadResponse>;
}

/**
 * A chain starting with `first` (the envelope, which gives every request its id and its log line).
 * Middy's own early timeout is off: it would race the handler alone (not the reads before it, nor the
 * rejection record after it) and abandon a write in flight with a 500; the deadline is
 * withinFunctionDeadline's (shared/deadline.ts).
 */
export const leadChain = (first: Middleware<LeadContext> & { readonly requestEnd?: (request: Request<LeadEvent, LeadResponse, Error, LeadContext>) => void }): LeadChain<LeadContext> =>
  // Middy's own `use` (arrays of middlewares) and `handler`, typed by LeadChain: each `use` was given a
  // step on a context with what it needs, so the handler's context has what the steps added. The one
  // place that says so; it adds no code to a bundle.
  // `requestEnd` finishes an answer a step gave early (the envelope's, http-envelope.ts), which skips every `after`.
  middy<LeadEvent, LeadResponse, Error, LeadContext>({ timeoutEarlyInMillis: 0, ...(first.requestEnd && { requestEnd: first.requestEnd as (request: Request) => void }) }).use(first) as unknown as LeadChain<LeadContext>;
