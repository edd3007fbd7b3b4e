/** The contract's response envelope (CONTRACT.md section 1), written once for the four endpoints. */
import { FieldsRefusal, LeadIntakeError, RetryLaterError } from '../domain/errors.ts';
import type { LeadRecord } from '../domain/lead.ts';
import type { LeadResponse } from './lambda.ts';

export const LEAD_CREATED = 'Lead created successfully';
export const LEAD_WOULD_BE_CREATED = 'Lead would be created';

export const jsonResponse = (statusCode: number, body: unknown, headers: Record<string, string> = {}): LeadResponse => ({
  statusCode,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(body),
});

export const leadCreated = (lead: LeadRecord | undefined, headers: Record<string, string> = {}): LeadResponse =>
  jsonResponse(200, { status: true, message: LEAD_CREATED, ...(lead && { data: lead }) }, headers);

/** A dry run's answer: what would be stored, on every endpoint (a sender testing wants to see it). */
export const leadWouldBeCreated = (lead: LeadRecord): LeadResponse =>
  jsonResponse(200, { status: true, message: LEAD_WOULD_BE_CREATED, dry_run: true, data: lead });

/** What a 500 says: only the request id to quote, nothing from inside. */
export const leadNotCreated = (requestId: string) => `Lead could not be created (request ${requestId})`;

/** The answer to a failed request: the refusal the contract names, or a 500 that says nothing inside. */
export const failure = (error: unknown, requestId: string, unexpected: (requestId: string) => string = leadNotCreated): LeadResponse => {
  if (error instanceof FieldsRefusal) {
    return jsonResponse(error.status, { status: false, message: error.message, errors: error.errors });
  }
  if (error instanceof RetryLaterError) {
    return jsonResponse(error.status, { status: false, message: error.message }, { 'retry-after': String(error.retryAfterSeconds) });
  }
  if (error instanceof LeadIntakeError) {
    return jsonResponse(error.status, { status: false, message: error.message });
  }
  return jsonResponse(500, { status: false, message: unexpected(requestId) });
};
