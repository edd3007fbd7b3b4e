/**
 * CORS for the browser-facing endpoints (the website's form): the preflight's answer and the headers
 * of every other answer, given to the envelope (http-envelope.ts `cors`). Its own module, so that the
 * functions no browser calls (the webhooks, the admin function) carry none of it.
 */
import { jsonResponse } from '../envelope.ts';
import { header, type LeadEvent, type LeadResponse } from '../lambda.ts';
import type { CorsPolicy } from './http-envelope.ts';

export interface CorsOptions {
  /** Origins a browser may post from; `*` allows any. */
  readonly allowedOrigins: readonly string[];
}

/** Request headers a browser form may send; named, not `*`, since `*` does not cover credentials. */
const CORS_ALLOWED_HEADERS = 'content-type, x-api-key, accept, idempotency-key, x-dry-run';

export const corsPolicy = ({ allowedOrigins }: CorsOptions): CorsPolicy => ({
  preflight,
  // A browser key's decision (its origin echoed, or none for a refused origin) wins over the stack's
  // setting, which applies to every other answer (before the key is known, or for a server key).
  headers: (event, keyDecision) => ({
    ...(keyDecision === undefined ? allowOrigin(allowedOrigins, event) : keyDecision === null ? { vary: 'Origin' } : { 'access-control-allow-origin': keyDecision, vary: 'Origin' }),
    'access-control-expose-headers': CORS_EXPOSED_HEADERS,
  }),
});

const preflight = (): LeadResponse => {
  const response = jsonResponse(204, null, {
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': CORS_ALLOWED_HEADERS,
    'access-control-max-age': '600',
  });
  delete response.body;
  return response;
};

/** Response headers a browser script may read: the request id to quote, when to retry, replays. */
const CORS_EXPOSED_HEADERS = 'x-request-id, retry-after, idempotent-replayed';

const allowOrigin = (allowedOrigins: readonly string[], event: LeadEvent): Record<string, string> => {
  if (allowedOrigins.includes('*')) return { 'access-control-allow-origin': '*' };
  const origin = header(event, 'origin');
  // A listed origin is echoed; any other gets the first listed one, which its browser then refuses.
  return {
    'access-control-allow-origin': origin && allowedOrigins.includes(origin) ? origin : (allowedOrigins[0] ?? 'null'),
    vary: 'Origin',
  };
};
