/**
 * GET and POST /api/whatsapp-webhook (CONTRACT.md section 15), answered synchronously. GET answers
 * Meta's subscription check. POST, in the contract's order of checks: a body over 3 MiB 413; the
 * Meta app's signature over the raw bytes (401, nothing read); JSON (400); identifiers over 200
 * characters (400, nothing of the notification stored); then each message in the order sent is
 * stored, recorded or ignored (chat.ts), each with its own log line, and only then 200
 * `Notification received`. A database outage answers 503 with Retry-After: Meta retries the whole
 * notification for up to 7 days, and each message is stored once whatever was stored before.
 */
import middy from '@middy/core';
import { withinFunctionDeadline } from '../deadline.ts';
import { InvalidSignatureError } from '../meta-app.ts';
import { MalformedJsonBodyError, PayloadTooLargeError } from '../domain/errors.ts';
import { jsonResponse } from '../http/envelope.ts';
import { header, httpMethod, type LeadContext, type LeadEvent, type LeadResponse } from '../http/lambda.ts';
import { httpEnvelope } from '../http/middleware/http-envelope.ts';
import type { LogSink } from '../log.ts';
import { isValidSignature, subscriptionChallenge, type MetaAppSecrets } from '../meta-app.ts';
import { receiveChatMessage, type ChatDependencies, type ChatOutcome, type ChatProgress } from './chat.ts';
import { whatsappIntakeSource } from './intake-source.ts';
import type { WhatsAppDelivery, WhatsAppReaderSettings } from './notification.ts';
import { whatsappWireNames } from './wire-names.ts';

/** The largest notification read: Meta's batches stay far below it. */
export const MAX_NOTIFICATION_BYTES = 3 * 1024 * 1024;

export interface WhatsAppWebhookRuntime extends ChatDependencies {
  readonly secrets: () => Promise<MetaAppSecrets>;
  readonly settings: WhatsAppReaderSettings;
  readonly log: LogSink;
}

const { name: ENDPOINT, acceptance } = whatsappWireNames;

const queryOf = (event: LeadEvent): URLSearchParams => {
  if (event.rawQueryString) return new URLSearchParams(event.rawQueryString);
  return new URLSearchParams(Object.entries(event.queryStringParameters ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined));
};

const rawBodyOf = (event: LeadEvent): Buffer => (event.body == null ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8'));

/** Signed JSON that is not an object is no notification: acknowledged and ignored, like another object's. */
const notificationOf = (rawBody: Buffer): Readonly<Record<string, unknown>> => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new MalformedJsonBodyError();
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
};

/** The outcome word of a message's log line (and its metric, for those that count: shared/telemetry.ts). */
const outcomeWord = (outcome: ChatOutcome): string => {
  switch (outcome.kind) {
    case 'created':
      return outcome.replayed ? 'idempotent_replay' : outcome.lead.is_repeated ? 'repeated' : 'created';
    case 'rejected':
      return outcome.reason;
    case 'ignored':
      return outcome.reason;
    case 'not_connected':
      return 'whatsapp_number_not_connected';
    default:
      return outcome.kind;
  }
};

/** Outcomes that count in the service's metrics: a message stored, recorded, or sent to a number no account has. */
const counted = (outcome: ChatOutcome): boolean => outcome.kind === 'created' || outcome.kind === 'rejected' || outcome.kind === 'not_connected';

/**
 * A message's log line: its number's id, its message id, the account, the outcome; never its text, the
 * sender's name or any part of their number (CONTRACT.md section 14).
 */
const logMessage = (log: LogSink, requestId: string, delivery: WhatsAppDelivery, outcome: ChatOutcome, progress: ChatProgress) =>
  log({
    level: outcome.kind === 'not_connected' ? 'warn' : 'info',
    message: outcome.kind === 'not_connected' ? 'whatsapp message to a number no account has connected' : 'whatsapp message',
    requestId,
    ...(counted(outcome) && { endpoint: ENDPOINT, status: 200 }),
    ...(progress.accountId && outcome.kind !== 'not_connected' && { accountId: progress.accountId }),
    ...(delivery.phoneNumberId !== undefined && { phoneNumberId: delivery.phoneNumberId }),
    ...(delivery.messageId !== undefined && { messageId: delivery.messageId }),
    outcome: outcomeWord(outcome),
    ...(outcome.kind === 'created' && { leadId: outcome.lead.id }),
  });

export const whatsappWebhookHandler = (runtime: WhatsAppWebhookRuntime) => withinFunctionDeadline(whatsappWebhookChain(runtime));

const whatsappWebhookChain = (runtime: WhatsAppWebhookRuntime) => {
  const source = whatsappIntakeSource(runtime.settings);
  // Middy's own early timeout is off, as for the lead endpoints (shared/http/lead-handler.ts).
  return middy<LeadEvent, LeadResponse, Error, LeadContext>({ timeoutEarlyInMillis: 0 })
    .use(httpEnvelope({ endpoint: ENDPOINT, log: runtime.log }))
    .handler(async (event, context) => {
      if (httpMethod(event) === 'GET') {
        const challenge = subscriptionChallenge(queryOf(event), (await runtime.secrets()).verifyToken);
        context.outcome = 'verified';
        return { statusCode: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: challenge };
      }
      const rawBody = rawBodyOf(event);
      if (rawBody.length > MAX_NOTIFICATION_BYTES) throw new PayloadTooLargeError();
      const { appSecret } = await runtime.secrets();
      if (!isValidSignature(rawBody, header(event, 'x-hub-signature-256'), appSecret)) throw new InvalidSignatureError();
      const body = notificationOf(rawBody);
      // Every message read (and every identifier bounded) before the first is stored.
      const deliveries = source.read({ event, requestId: context.requestId, route: undefined, body });
      for (const delivery of deliveries) {
        const progress: ChatProgress = {};
        const outcome = await receiveChatMessage(source, delivery, context.requestId, runtime, progress);
        logMessage(runtime.log, context.requestId, delivery, outcome, progress);
        if (outcome.kind === 'created') context.leadId = outcome.lead.id;
      }
      context.outcome = 'notification_received';
      return jsonResponse(acceptance.status, { status: true, message: acceptance.message });
    });
};
