/**
 * GET|POST /api/call-lead-webhook/{provider} (CONTRACT.md section 13): a telephony provider's
 * notification of a call to a project's number. The chain shares the lead endpoints' middleware and
 * runs the contract's checks in its order: the provider (404, before the key is read), the key from
 * `x-api-key` or `?key=` (401, 404) and its `calls` scope (403), then the body (413, 415, 400); then
 * the call becomes a lead, or a rejection record, in the request (one DynamoDB transaction with its
 * exactly-once claim, like any lead), and is answered 200 `Call received` whatever became of it.
 */
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import { withinFunctionDeadline } from '../deadline.ts';
import type { AccountDirectory } from '../domain/account-directory.ts';
import { receivedAtOnce } from '../domain/connection-cache.ts';
import { UnknownCallProviderError } from './errors.ts';
import { jsonResponse } from '../http/envelope.ts';
import type { LeadContext, LeadEvent, LeadResponse } from '../http/lambda.ts';
import { MAX_BODY_BYTES } from '../http/lead-handler.ts';
import { httpEnvelope } from '../http/middleware/http-envelope.ts';
import { scopedApiKey } from '../http/middleware/key-scope.ts';
import type { LogSink } from '../log.ts';
import { CALL_ENDPOINT, receiveCall, type CallLeadDependencies } from './call-lead.ts';
import { callDeliveryOf, type CallDelivery } from './delivery.ts';
import { callParametersOf } from './parameters.ts';
import { callProviderNamed, type CallProvider } from './providers.ts';
import { callsWireNames } from './wire-names.ts';

export const CALL_RECEIVED = callsWireNames.acceptance.message;

export interface CallWebhookRuntime extends CallLeadDependencies {
  readonly directory: AccountDirectory;
  readonly log: LogSink;
}

interface CallContext extends LeadContext {
  provider?: CallProvider;
  call?: CallDelivery;
}

type CallMiddleware = MiddlewareObj<LeadEvent, LeadResponse, Error, CallContext>;

/** The provider the path names, from the provider table (404 `Unknown call provider` for any other). */
const callProvider = (): CallMiddleware => ({
  before: ({ event, context }) => {
    const provider = callProviderNamed(event.pathParameters?.provider);
    if (!provider) throw new UnknownCallProviderError();
    context.provider = provider;
  },
});

/** The call's parameters, however sent (413, 415, 400 for a body that cannot be read), read through the provider's row. */
const callDelivery = (): CallMiddleware => ({
  before: ({ event, context }) => {
    const provider = context.provider!;
    const parameters = callParametersOf(event, { maxBytes: MAX_BODY_BYTES, ...(provider.jsonFormField !== undefined && { jsonFormField: provider.jsonFormField }) });
    context.call = callDeliveryOf(provider, parameters);
  },
});

export const callWebhookHandler = (runtime: CallWebhookRuntime) => withinFunctionDeadline(callWebhookChain(runtime));

const callWebhookChain = (runtime: CallWebhookRuntime) =>
  // Middy's own early timeout is off, as for the lead endpoints (shared/http/lead-handler.ts).
  middy<LeadEvent, LeadResponse, Error, CallContext>({ timeoutEarlyInMillis: 0 })
    .use(httpEnvelope({ endpoint: CALL_ENDPOINT, log: runtime.log }))
    .use(callProvider())
    .use(scopedApiKey(runtime.directory, callsWireNames.keyScope))
    .use(callDelivery())
    .handler(async (_event, context) => {
      const call = context.call!;
      const account = context.account!;
      // On the number as it is now, whatever the cache (CONTRACT.md section 14): moved, its call is a lead of its new project; removed, a call to a number not connected.
      const outcome = await receivedAtOnce(
        (afresh) => {
          // The fields validated against the number as cached are not this attempt's.
          if (afresh) context.fields = undefined;
          return receiveCall(call, account, context, runtime, { counted: afresh });
        },
        () => call.callNumber !== undefined && runtime.callNumbers.forget(account.config.id, call.callNumber),
      );
      if (outcome.kind === 'created') {
        context.leadId = outcome.lead.id;
        context.outcome = outcome.replayed ? 'idempotent_replay' : outcome.lead.is_repeated ? 'repeated' : 'created';
      } else {
        context.outcome = outcome.kind === 'rejected' ? outcome.reason : outcome.kind;
      }
      return jsonResponse(callsWireNames.acceptance.status, { status: true, message: CALL_RECEIVED });
    });
