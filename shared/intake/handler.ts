/**
 * A source's Lambda handler, made of its declaration (IntakeSource): the request's envelope (its id,
 * its one log line and metrics, the contract's answers to refusals), the route's own check, the
 * authentication it declares and its body as it declares it (steps.ts), its reader, the one intake
 * (intake.ts), and its answer, all within the function's deadline. The contract's order of checks: the route (404), the
 * key (401, 404) and its scope (403) for a key source; then size (413), Content-Type (415) and JSON
 * (400), or, for a signed source, size, signature (401) and JSON; then what the reader refuses (400),
 * the connection's key (401), and each delivery.
 */
import { withinFunctionDeadline } from '../deadline.ts';
import { jsonResponse } from '../http/envelope.ts';
import type { Authenticated, LeadContext, WithBody } from '../http/lambda.ts';
import type { LeadStep } from '../http/lead-chain.ts';
import { intakeChain } from './chain.ts';
import type { LogSink } from '../log.ts';
import { receiveDeliveries, type IntakeDependencies } from './intake.ts';
import type { Delivery, DeliveryOutcome, IntakeRequest, IntakeSource } from './types.ts';


export interface IntakeRuntime extends IntakeDependencies {
  readonly log: LogSink;
}

/**
 * The steps that run what a source declares for its authentication and its body (steps.ts), chosen by
 * its handler module so that a function's bundle carries only its own (an API key's checks, a
 * signature's, a form's key), each checked against the declaration when the handler is built.
 */
export interface IntakeSteps {
  readonly authentication: LeadStep<LeadContext, Partial<Authenticated>>;
  readonly body: LeadStep<LeadContext, Partial<WithBody>>;
}

export const intakeHandler = <D extends Delivery, Route>(source: IntakeSource<D, Route>, runtime: IntakeRuntime, steps: IntakeSteps) =>
  withinFunctionDeadline(intakeDeliveries(source, runtime, steps));

const intakeDeliveries = <D extends Delivery, Route>(source: IntakeSource<D, Route>, runtime: IntakeRuntime, steps: IntakeSteps) =>
  intakeChain(source, runtime.log, steps)
    .handler(async (event, context) => {
      const request: IntakeRequest<Route> = {
        event,
        requestId: context.requestId,
        route: context.route,
        body: context.body,
        accountId: context.account?.config.id,
        keyId: context.account?.key.keyId,
      };
      const deliveries = source.read(request);
      // The context is the caller: its key's account, and the account its deliveries were received for, for its log line.
      const outcomes = await receiveDeliveries(source, runtime, request, context, deliveries);
      // A delivery to a connection no account has (an `ignore` rule) is logged by the connection's id alone.
      outcomes.forEach((outcome, index) => {
        if (outcome.kind === 'ignored' && outcome.reason === 'not_connected') {
          runtime.log({ level: 'warn', message: 'not connected', requestId: context.requestId, connectionId: deliveries[index]?.connection?.id });
        }
      });
      noteOutcome(context, outcomes);
      return jsonResponse(source.answer.status, { status: true, message: source.answer.message });
    });

/** The request's log line: its one delivery's outcome (and lead id), or, of several, the last one not ignored. */
const noteOutcome = (context: LeadContext, outcomes: readonly DeliveryOutcome[]): void => {
  const outcome = outcomes.findLast((each) => each.kind !== 'ignored') ?? outcomes.at(-1);
  if (!outcome) {
    context.outcome = 'empty';
    return;
  }
  if (outcome.kind === 'created') {
    context.leadId = outcome.leadId;
    context.outcome = outcome.replayed ? 'idempotent_replay' : outcome.repeated ? 'repeated' : 'created';
  } else context.outcome = outcome.kind === 'rejected' || outcome.kind === 'ignored' ? outcome.reason : outcome.kind;
};
