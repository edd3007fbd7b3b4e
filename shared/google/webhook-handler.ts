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
import { receivedAtOnce } from '../domain/connection-cache.ts';
import type { GoogleFormDirectory } from './forms.ts';
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
 * The delivery received on the form as it is now (CONTRACT.md section 14): when its write found the
 * form rotated, removed or moved since it was read (nothing stored), the form is read afresh and its
 * key checked again: a rotated or removed form answers 401 as for any wrong key, a moved one's lead
 * lands in its new project and campaign.
 */
const receivedOnTheFormNow = (delivery: GoogleDelivery, form: GoogleFormConnection, context: GoogleContext, runtime: GoogleAdsRuntime) =>
  receivedAtOnce(
    async (afresh) => receiveGoogleLead(delivery, afresh ? await runtime.forms.authenticate(delivery.formId, delivery.key) : form, context, runtime),
    () => runtime.forms.forget(form.id),
  );

export const googleAdsHandler = (runtime: GoogleAdsRuntime) => withinFunctionDeadline(googleAdsChain(runtime));

const googleAdsChain = (runtime: GoogleAdsRuntime) =>
  // Middy's own early timeout is off, as for the lead endpoints (shared/http/lead-handler.ts).
  middy<LeadEvent, LeadResponse, Error, GoogleContext>({ timeoutEarlyInMillis: 0 })
    .use(httpEnvelope({ endpoint: GOOGLE_ADS_ENDPOINT, log: runtime.log }))
    .use(jsonObjectBody({ maxBytes: MAX_BODY_BYTES }))
    .use(googleFormKey(runtime.forms))
    .handler(async (_event, context) => {
      const outcome = await receivedOnTheFormNow(context.delivery!, context.form!, context, runtime);
      if (outcome.kind === 'created') {
        context.leadId = outcome.lead.id;
        context.outcome = outcome.replayed ? 'idempotent_replay' : outcome.lead.is_repeated ? 'repeated' : 'created';
      } else {
        context.outcome = outcome.kind === 'rejected' ? outcome.reason : outcome.kind;
      }
      return jsonResponse(200, { status: true, message: LEAD_RECEIVED });
    });
