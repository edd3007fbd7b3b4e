import { randomUUID } from 'node:crypto';
import type { MiddlewareObj, Request } from '@middy/core';
import { LeadIntakeError } from '../../domain/errors.ts';
import { redact, type LogSink } from '../../log.ts';
import { failure, jsonResponse } from '../envelope.ts';
import { header, httpMethod, type LeadContext, type LeadEvent, type LeadResponse } from '../lambda.ts';
import { sourceMappedStack } from '../../source-mapped-stack.ts';

export interface CorsOptions {
  /** Origins a browser may post from; `*` allows any. */
  readonly allowedOrigins: readonly string[];
}

export interface HttpEnvelopeOptions {
  readonly endpoint: string;
  readonly log: LogSink;
  /** Browser-facing endpoints only: answers preflight and sets Access-Control-Allow-Origin. */
  readonly cors?: CorsOptions;
  /** What a 500 says, with the request id to quote; a lead endpoint's `Lead could not be created` by default. */
  readonly unexpected?: (requestId: string) => string;
}

type LeadRequest = Request<LeadEvent, LeadResponse, Error, LeadContext>;

/** Request headers a browser form may send; named, not `*`, since `*` does not cover credentials. */
const CORS_ALLOWED_HEADERS = 'content-type, x-api-key, accept, idempotency-key, x-dry-run';

/**
 * The outermost middleware: gives the request its id, and turns whatever the chain produced (a
 * response, a refusal, an unexpected error) into the contract's answer with `x-request-id`, CORS
 * headers where the endpoint has them, and the request's one log line. Nothing inside the chain
 * writes headers or logs.
 */
export const httpEnvelope = ({ endpoint, log, cors, unexpected }: HttpEnvelopeOptions): MiddlewareObj<LeadEvent, LeadResponse, Error, LeadContext> => {
  const finish = (request: LeadRequest, response: LeadResponse, error?: unknown): LeadResponse => {
    const { context, event } = request;
    response.headers = { ...response.headers, 'x-request-id': context.requestId, ...(cors && corsHeaders(cors, event, context.allowOrigin)) };
    log({
      level: response.statusCode >= 500 ? 'error' : 'info',
      requestId: context.requestId,
      endpoint,
      accountId: context.account?.config.id ?? context.accountId,
      // The key's public id (never the key): which sender, or which page, a refusal or a flood came from.
      ...(context.account?.key.keyId && { keyId: context.account.key.keyId }),
      outcome: context.outcome ?? outcomeOf(response, error),
      status: response.statusCode,
      durationMs: Math.round((performance.now() - context.startedAt) * 10) / 10,
      ...(context.leadId && { leadId: context.leadId }),
      // No part of the person's mobile or e-mail (CONTRACT.md section 14): the lead id, or the request id
      // its rejection record keeps, is what finds them (access and erasure reach those; logs they cannot).
      ...(error !== undefined && !(error instanceof LeadIntakeError) && { error: describe(error) }),
    });
    return response;
  };

  return {
    before: (request) => {
      request.context.startedAt = performance.now();
      request.context.requestId = request.event.requestContext?.requestId || request.context.awsRequestId || randomUUID();
      if (cors && httpMethod(request.event) === 'OPTIONS') {
        request.context.outcome = 'preflight';
        return finish(request, preflight());
      }
      return undefined;
    },
    after: (request) => {
      finish(request, request.response!);
    },
    onError: (request) => {
      request.response = finish(request, failure(request.error, request.context.requestId, unexpected), request.error);
    },
  };
};

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

/**
 * A browser key's decision (its origin echoed, or none for a refused origin) wins over the stack's
 * setting, which applies to every other answer (before the key is known, or for a server key).
 */
const corsHeaders = (options: CorsOptions, event: LeadEvent, keyDecision: string | null | undefined): Record<string, string> => ({
  ...(keyDecision === undefined ? allowOrigin(options, event) : keyDecision === null ? { vary: 'Origin' } : { 'access-control-allow-origin': keyDecision, vary: 'Origin' }),
  'access-control-expose-headers': CORS_EXPOSED_HEADERS,
});

const allowOrigin = ({ allowedOrigins }: CorsOptions, event: LeadEvent): Record<string, string> => {
  if (allowedOrigins.includes('*')) return { 'access-control-allow-origin': '*' };
  const origin = header(event, 'origin');
  // A listed origin is echoed; any other gets the first listed one, which its browser then refuses.
  return {
    'access-control-allow-origin': origin && allowedOrigins.includes(origin) ? origin : (allowedOrigins[0] ?? 'null'),
    vary: 'Origin',
  };
};

const outcomeOf = (response: LeadResponse, error: unknown): string =>
  error instanceof LeadIntakeError ? error.reason : response.statusCode >= 500 ? 'failed' : 'ok';

/** An unexpected error for the log: its kind and a redacted message, never a key or contact detail. */
export const describe = (error: unknown) =>
  error instanceof Error
    ? { name: error.name, message: redact(error.message).slice(0, 500), stack: redact(sourceMappedStack(error.stack ?? '')).slice(0, 2000) }
    : { name: typeof error };
