/**
 * What a webhook source's OpenAPI module (its descriptor's `openapi`) is made of: the JSON it writes,
 * and the envelope answers of its route with one exact message each.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const requestId: JsonObject = { $ref: '#/components/headers/XRequestId' };

/** A webhook's answer: the envelope with one exact message (every webhook's). */
const envelopeAnswer = (status: boolean, message: string, description: string): JsonObject => ({
  description,
  headers: { 'x-request-id': requestId },
  content: {
    'application/json; charset=utf-8': {
      schema: {
        type: 'object',
        required: ['status', 'message'],
        properties: { status: { const: status }, message: status ? { type: 'string', const: message } : { type: 'string', enum: [message] } },
        additionalProperties: false,
      },
      example: { status, message },
    },
  },
});

export const acknowledgement = (message: string, description: string) => envelopeAnswer(true, message, description);
export const failure = (message: string, description: string) => envelopeAnswer(false, message, description);

/** A webhook's JSON body: required, its schema and an example. */
export const jsonRequestBody = (schema: JsonObject, example: JsonObject): JsonObject => ({ required: true, content: { 'application/json': { schema, example } } });

/** An answer to retry after `Retry-After` seconds (a key's bound, the database unavailable). */
export const retryAfterAnswer = (answer: JsonObject): JsonObject => ({ ...answer, headers: { 'x-request-id': requestId, 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } });
