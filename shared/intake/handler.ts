/**
 * A source's Lambda handler, made of its declaration (IntakeSource): the request's envelope (its id,
 * its one log line and metrics, the contract's answers to refusals), the route's own check, the
 * authentication it declares, its body as it declares it, its reader, the one intake (intake.ts), and
 * its answer, all within the function's deadline. The contract's order of checks: the route (404), the
 * key (401, 404) and its scope (403) for a key source; then size (413), Content-Type (415) and JSON
 * (400), or, for a signed source, size, signature (401) and JSON; then what the reader refuses (400),
 * the connection's key (401), and each delivery.
 */
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import { withinFunctionDeadline } from '../deadline.ts';
import { BodyNotAnObjectError, PayloadTooLargeError, type LeadIntakeError } from '../domain/errors.ts';
import { jsonResponse } from '../http/envelope.ts';
import { header, httpMethod, type LeadContext, type LeadEvent, type LeadResponse } from '../http/lambda.ts';
import { MAX_BODY_BYTES } from '../http/lead-handler.ts';
import { apiKeyAccount } from '../http/middleware/api-key-account.ts';
import { httpEnvelope } from '../http/middleware/http-envelope.ts';
import { jsonObjectBody, jsonObjectOf } from '../http/middleware/json-object-body.ts';
import { keyScope, scopedApiKey } from '../http/middleware/key-scope.ts';
import type { LogSink } from '../log.ts';
import { receiveDeliveries, type IntakeDependencies } from './intake.ts';
import type { Delivery, DeliveryOutcome, IntakeSource } from './types.ts';


/** A platform's signature of the raw body (`platform-signature`): its check, and the refusal of a bad one. */
export interface SignatureCheck {
  readonly verify: (rawBody: Buffer, signature: string | undefined) => Promise<boolean>;
  readonly refusal: () => LeadIntakeError;
  /**
   * The platform's subscription check on GET (Meta's `hub.mode=subscribe&hub.verify_token=T&hub.challenge=C`):
   * the text to answer as `text/plain`, or a refusal it throws. Absent: the source is not subscribed to by GET.
   */
  readonly subscribe?: (query: URLSearchParams) => Promise<string>;
}

export interface IntakeRuntime extends IntakeDependencies {
  readonly log: LogSink;
  /** A `platform-signature` source's check (the platform's app secret). */
  readonly signature?: SignatureCheck;
}

interface IntakeContext<Route> extends LeadContext {
  route?: Route;
}

type Step<Route> = MiddlewareObj<LeadEvent, LeadResponse, Error, IntakeContext<Route>>;

export const intakeHandler = <D extends Delivery, Route>(source: IntakeSource<D, Route>, runtime: IntakeRuntime) =>
  withinFunctionDeadline(intakeChain(source, runtime));

const intakeChain = <D extends Delivery, Route>(source: IntakeSource<D, Route>, runtime: IntakeRuntime) =>
  // Middy's own early timeout is off, as for the lead endpoints (shared/http/lead-handler.ts): the deadline is withinFunctionDeadline's.
  middy<LeadEvent, LeadResponse, Error, IntakeContext<Route>>({ timeoutEarlyInMillis: 0 })
    .use(httpEnvelope({ endpoint: source.name, log: runtime.log }))
    .use(subscription(runtime))
    .use(routeCheck(source))
    .use(authentication(source, runtime))
    .use(body(source, runtime))
    .handler(async (event, context) => {
      const request = {
        event,
        requestId: context.requestId,
        route: context.route as Route,
        ...(context.body && { body: context.body }),
        ...(context.account && { accountId: context.account.config.id, ...(context.account.key.keyId !== undefined && { keyId: context.account.key.keyId }) }),
      };
      const deliveries = source.read(request);
      const outcomes = await receiveDeliveries(source, runtime, request, {
        ...(context.account && { account: context.account }),
        noteAccount: (accountId) => {
          context.accountId = accountId;
        },
      }, deliveries);
      // A delivery to a connection no account has (an `ignore` rule) is logged by the connection's id alone.
      outcomes.forEach((outcome, index) => {
        if (outcome.kind === 'ignored' && outcome.reason === 'not_connected') {
          runtime.log({ level: 'warn', message: `${source.name} delivery to a connection no account has`, requestId: context.requestId, connectionId: deliveries[index]?.connection?.id });
        }
      });
      noteOutcome(context, outcomes);
      return jsonResponse(source.answer.status, { status: true, message: source.answer.message });
    });

/** A platform's subscription check (GET), answered before anything else when the runtime's signature check has one. */
const subscription = <Route>(runtime: IntakeRuntime): Step<Route> => ({
  before: async ({ event, context }) => {
    const subscribe = runtime.signature?.subscribe;
    if (!subscribe || httpMethod(event) !== 'GET') return undefined;
    const query = new URLSearchParams(event.rawQueryString ?? '');
    const challenge = await subscribe(query);
    context.outcome = 'verified';
    return { statusCode: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: challenge };
  },
});

/** What the route's path names, before the key is read. */
const routeCheck = <Route>(source: IntakeSource<any, Route>): Step<Route> => ({
  before: ({ event, context }) => {
    if (source.route) context.route = source.route(event);
  },
});

const authentication = <Route>(source: IntakeSource<any, Route>, runtime: IntakeRuntime): Step<Route>[] => {
  const declared = source.authentication;
  if (declared.kind === 'api-key') return [apiKeyAccount(runtime.directory), keyScope(declared.endpoint)];
  if (declared.kind === 'scoped-api-key') return scopedApiKey(runtime.directory, declared.scope);
  // A signature is checked with the body it signs (below); a connection's key with its connection (intake.ts).
  return [];
};

const body = <Route>(source: IntakeSource<any, Route>, runtime: IntakeRuntime): Step<Route>[] => {
  const maxBytes = source.maxBodyBytes ?? MAX_BODY_BYTES;
  if (source.bodyFormat === 'json') return [jsonObjectBody({ maxBytes })];
  if (source.bodyFormat === 'parameters') return [];
  return [signedJsonBody(maxBytes, runtime)];
};

/** Size (413), then the platform's signature of the raw bytes (401, nothing read), then JSON (400). */
const signedJsonBody = <Route>(maxBytes: number, runtime: IntakeRuntime): Step<Route> => ({
  before: async ({ event, context }) => {
    const signature = runtime.signature;
    if (!signature) throw new Error('a signed source was given no signature check');
    const raw = event.body == null ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
    if (raw.length > maxBytes) throw new PayloadTooLargeError();
    if (!(await signature.verify(raw, header(event, 'x-hub-signature-256')))) throw signature.refusal();
    context.body = signedObjectOf(raw);
  },
});

/**
 * A signed body as its reader reads it: JSON that is not an object is the platform's all the same (its
 * signature says so), and holds nothing the reader knows, so it is read as an empty notification
 * (acknowledged, nothing stored: CONTRACT.md section 15) rather than refused. Text that is not JSON: 400.
 */
const signedObjectOf = (raw: Buffer): Record<string, unknown> => {
  try {
    return jsonObjectOf(raw);
  } catch (error) {
    if (error instanceof BodyNotAnObjectError) return {};
    throw error;
  }
};

/** The request's log line: its one delivery's outcome (and lead id), or, of several, the last one not ignored. */
const noteOutcome = (context: LeadContext, outcomes: readonly DeliveryOutcome[]): void => {
  const outcome = [...outcomes].reverse().find((each) => each.kind !== 'ignored') ?? outcomes.at(-1);
  if (!outcome) {
    context.outcome = 'empty';
    return;
  }
  if (outcome.kind === 'created') {
    context.leadId = outcome.leadId;
    context.outcome = outcome.replayed ? 'idempotent_replay' : outcome.repeated ? 'repeated' : 'created';
  } else context.outcome = outcome.kind === 'rejected' || outcome.kind === 'ignored' ? outcome.reason : outcome.kind;
};
