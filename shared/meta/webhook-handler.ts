/**
 * GET and POST /api/meta-leadgen-webhook (CONTRACT.md section 8). GET answers Meta's subscription
 * check. POST checks X-Hub-Signature-256 over the raw body bytes before anything else is read, then
 * queues each leadgen change and answers 200 `Notification received`; the leads are made by the worker.
 */
import middy from '@middy/core';
import { InvalidSignatureError, WebhookVerificationFailedError } from './errors.ts';
import { jsonResponse } from '../http/envelope.ts';
import { header, httpMethod, type LeadContext, type LeadEvent, type LeadResponse } from '../http/lambda.ts';
import { httpEnvelope } from '../http/middleware/http-envelope.ts';
import type { LogSink } from '../log.ts';
import { leadgenChangesOf, parseNotification } from './notification.ts';
import type { LeadgenQueue } from './queue.ts';
import type { MetaSecrets } from './secrets.ts';
import { isValidSignature, secretsEqual } from './signature.ts';

export const NOTIFICATION_RECEIVED = 'Notification received';
export const META_WEBHOOK_ENDPOINT = 'meta-webhook';

export interface MetaWebhookRuntime {
  readonly secrets: () => Promise<MetaSecrets>;
  readonly queue: LeadgenQueue;
  readonly log: LogSink;
}

const queryOf = (event: LeadEvent): URLSearchParams => {
  if (event.rawQueryString) return new URLSearchParams(event.rawQueryString);
  return new URLSearchParams(Object.entries(event.queryStringParameters ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined));
};

const rawBodyOf = (event: LeadEvent): Buffer => (event.body == null ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8'));

export const metaWebhookHandler = (runtime: MetaWebhookRuntime) =>
  middy<LeadEvent, LeadResponse, Error, LeadContext>()
    .use(httpEnvelope({ endpoint: META_WEBHOOK_ENDPOINT, log: runtime.log }))
    .handler(async (event, context) => {
      const { appSecret, verifyToken } = await runtime.secrets();

      if (httpMethod(event) === 'GET') {
        const query = queryOf(event);
        const challenge = query.get('hub.challenge');
        if (query.get('hub.mode') !== 'subscribe' || challenge === null || !secretsEqual(query.get('hub.verify_token') ?? '', verifyToken)) {
          throw new WebhookVerificationFailedError();
        }
        context.outcome = 'verified';
        return { statusCode: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: challenge };
      }

      const rawBody = rawBodyOf(event);
      if (!isValidSignature(rawBody, header(event, 'x-hub-signature-256'), appSecret)) throw new InvalidSignatureError();
      const { changes, skipped } = leadgenChangesOf(parseNotification(rawBody), context.requestId);
      if (skipped > 0) runtime.log({ level: 'warn', requestId: context.requestId, endpoint: META_WEBHOOK_ENDPOINT, message: 'leadgen changes without a leadgen or page id skipped', skipped });
      await runtime.queue.enqueue(changes);
      context.outcome = 'notification_received';
      return jsonResponse(200, { status: true, message: NOTIFICATION_RECEIVED });
    });

