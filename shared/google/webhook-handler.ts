/**
 * POST /api/google-ads-lead-webhook (CONTRACT.md section 10): Google Ads lead form deliveries. The
 * chain shares the lead endpoints' middleware and runs the contract's checks in its order: size
 * (413), Content-Type (415), JSON (400), then the form's key (401), before anything else is read;
 * then the delivery becomes a lead, or a rejection record, in the request (no queue: the lead is
 * created in one DynamoDB transaction with its idempotency record, like any lead).
 */
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import { withinFunctionDeadline } from '../deadline.ts';
import { ConnectionChangedError } from '../domain/errors.ts';
import { InvalidGoogleKeyError } from '../domain/google-errors.ts';
import type { GoogleFormDirectory } from '../domain/google-forms.ts';
import type { GoogleFormConnection } from '../domain/ports.ts';
import { jsonResponse } from '../http/envelope.ts';
import type { LeadContext, LeadEvent, LeadResponse } from '../http/lambda.ts';
import { MAX_BODY_BYTES } from '../http/lead-handler.ts';
import { httpEnvelope } from '../http/middleware/http-envelope.ts';
import { jsonObjectBody } from '../http/middleware/json-object-body.ts';
import type { LogSink } from '../log.ts';
import { deliveryOf, type GoogleDelivery } from './delivery.ts';
import { GOOGLE_ADS_ENDPOINT, receiveGoogleLead, type GoogleLeadDependencies } from './google-lead.ts';
import { googleAdsWireNames } from './wire-names.ts';

/** Its answer to every delivery its key lets in (its descriptor's). */
export const LEAD_RECEIVED = googleAdsWireNames.acceptance.message;

export interface GoogleAdsRuntime extends GoogleLeadDependencies {
  readonly forms: GoogleFormDirectory;
  readonly log: LogSink;
}

interface GoogleContext extends LeadContext {
  delivery?: GoogleDelivery;
  form?: GoogleFormConnection;
}

/** The form's key (401 `Invalid google_key`): the form's one item is all a failing request reads. */
const googleFormKey = (forms: GoogleFormDirectory): MiddlewareObj<LeadEvent, LeadResponse, Error, GoogleContext> => ({
  before: async ({ context }) => {
    const delivery = deliveryOf(context.body!);
    context.form = await forms.authenticate(delivery.formId, delivery.key);
    context.accountId = context.form.accountId;
    context.delivery = delivery;
  },
});

/**
 * The delivery received; or, when its write found the form rotated or removed since the cached key
 * was checked (nothing stored), the form dropped from the cache and 401 as for any wrong key.
 */
const receivedOrRefused = async (delivery: GoogleDelivery, form: GoogleFormConnection, context: GoogleContext, runtime: GoogleAdsRuntime) => {
  try {
    return await receiveGoogleLead(delivery, form, context, runtime);
  } catch (error) {
    if (!(error instanceof ConnectionChangedError)) throw error;
    runtime.forms.forget(form.id);
    throw new InvalidGoogleKeyError();
  }
};

export const googleAdsHandler = (runtime: GoogleAdsRuntime) => withinFunctionDeadline(googleAdsChain(runtime));

const googleAdsChain = (runtime: GoogleAdsRuntime) =>
  // Middy's own early timeout is off, as for the lead endpoints (shared/http/lead-handler.ts).
  middy<LeadEvent, LeadResponse, Error, GoogleContext>({ timeoutEarlyInMillis: 0 })
    .use(httpEnvelope({ endpoint: GOOGLE_ADS_ENDPOINT, log: runtime.log }))
    .use(jsonObjectBody({ maxBytes: MAX_BODY_BYTES }))
    .use(googleFormKey(runtime.forms))
    .handler(async (_event, context) => {
      const outcome = await receivedOrRefused(context.delivery!, context.form!, context, runtime);
      if (outcome.kind === 'created') {
        context.leadId = outcome.lead.id;
        context.outcome = outcome.replayed ? 'idempotent_replay' : outcome.lead.is_repeated ? 'repeated' : 'created';
      } else {
        context.outcome = outcome.reason;
      }
      return jsonResponse(200, { status: true, message: LEAD_RECEIVED });
    });
