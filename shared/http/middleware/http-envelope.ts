import { randomUUID } from 'node:crypto';
import type { MiddlewareObj, Request } from '@middy/core';
import { LeadIntakeError } from '../../domain/errors.ts';
import { redact, type LogSink } from '../../log.ts';
import { failure } from '../envelope.ts';
import { httpMethod, type LeadContext, type LeadEvent, type LeadResponse } from '../lambda.ts';
import { sourceMappedStack } from '../../source-mapped-stack.ts';

/**
 * A browser-facing endpoint's CORS answers (cors.ts `corsPolicy`): its preflight, and the headers of
 * every other answer. Given, not built here, so the functions no browser calls carry none of it.
 */
export interface CorsPolicy {
  readonly preflight: () => LeadResponse;
  /** A browser key's decision (its origin echoed, or null for a refused origin) wins over the stack's setting. */
  readonly headers: (event: LeadEvent, keyDecision: string | null | undefined) => Record<string, string>;
}

export interface HttpEnvelopeOptions {
  readonly endpoint: string;
  readonly log: LogSink;
  /** Browser-facing endpoints only: answers preflight and sets Access-Control-Allow-Origin. */
  readonly cors?: CorsPolicy;
  /** What a 500 says, with the request id to quote; a lead endpoint's `Lead could not be created` by default. */
  readonly unexpected?: (requestId: string) => string;
}

type LeadRequest = Request<LeadEvent, LeadResponse, Error, LeadContext>;

/**
 * The envelope as a middleware, and what must run once the chain is done (Middy's `requestEnd` hook):
 * a step's `before` that answers early (a platform's subscription check) skips every `after`, the
 * envelope's too, so the answer it gave is finished there, with its `x-request-id` and log line.
 */
export type HttpEnvelope = MiddlewareObj<LeadEvent, LeadResponse, Error, LeadContext> & { readonly requestEnd: (request: LeadRequest) => void };

/**
 * The outermost middleware: gives the request its id, and turns whatever the chain produced (a
 * response, a refusal, an unexpected error) into the contract's answer with `x-request-id`, CORS
 * headers where the endpoint has them, and the request's one log line. Nothing inside the chain
 * writes headers or logs.
 */
export const httpEnvelope = ({ endpoint, log, cors, unexpected }: HttpEnvelopeOptions): HttpEnvelope => {
  /** The requests whose answer has its headers and log line. */
  const finished = new WeakSet<LeadRequest>();
  const finish = (request: LeadRequest, response: LeadResponse, error?: unknown): LeadResponse => {
    finished.add(request);
    const { context, event } = request;
    response.headers = { ...response.headers, 'x-request-id': context.requestId, ...(cors && cors.headers(event, context.allowOrigin)) };
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
        return finish(request, cors.preflight());
      }
      return undefined;
    },
    after: (request) => {
      finish(request, request.response!);
    },
    onError: (request) => {
      request.response = finish(request, failure(request.error, request.context.requestId, unexpected), request.error);
    },
    requestEnd: (request) => {
      if (!finished.has(request) && request.response && request.context.requestId) finish(request, request.response);
    },
  };
};

const outcomeOf = (response: LeadResponse, error: unknown): string =>
  error instanceof LeadIntakeError ? error.reason : response.statusCode >= 500 ? 'failed' : 'ok';

/** An unexpected error for the log: its kind and a redacted message, never a key or contact detail. */
export const describe = (error: unknown) =>
  error instanceof Error
    ? { name: error.name, message: redact(error.message).slice(0, 500), stack: redact(sourceMappedStack(error.stack ?? '')).slice(0, 2000) }
    : { name: typeof error };
