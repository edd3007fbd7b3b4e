/**
 * The Meta app's webhooks in the OpenAPI document (shared/meta-app.ts): what every source the app signs
 * answers and reads the same way, its subscription check and its signature header. Each source's
 * OpenAPI module (its descriptor's `openapi`) says the rest.
 */
import { WebhookVerificationFailedError } from './meta-app.ts';
import { failure, requestId, type JsonObject } from './sources/webhook-openapi.ts';

/** The subscription check's query (`hub.mode=subscribe&hub.verify_token=T&hub.challenge=C`), with what the token is. */
export const subscriptionCheckParameters = (verifyTokenDescription: string): JsonObject[] => [
  { name: 'hub.mode', in: 'query', required: true, schema: { type: 'string', const: 'subscribe' } },
  { name: 'hub.verify_token', in: 'query', required: true, description: verifyTokenDescription, schema: { type: 'string' } },
  { name: 'hub.challenge', in: 'query', required: true, description: 'Echoed back exactly.', schema: { type: 'string' } },
];

/** The subscription check's answers: the challenge, or 403. */
export const subscriptionCheckAnswers = (): JsonObject => ({
  '200': { description: 'The challenge, exactly.', headers: { 'x-request-id': requestId }, content: { 'text/plain; charset=utf-8': { schema: { type: 'string' }, example: '1158201444' } } },
  '403': failure(new WebhookVerificationFailedError().message, 'Wrong verify token, another mode, or a parameter missing.'),
});

/** The app's signature of a notification's raw body. */
export const signatureParameter: JsonObject = {
  name: 'X-Hub-Signature-256',
  in: 'header',
  required: true,
  description: '`sha256=` and the hex HMAC-SHA256 of the raw body, keyed with the Meta app secret.',
  schema: { type: 'string', pattern: '^sha256=[0-9a-fA-F]{64}$' },
};
