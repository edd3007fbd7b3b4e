/** The contract's response envelope (CONTRACT.md section 1), written once for the four endpoints. */
import { LeadIntakeError, FieldValidationError, ServiceUnavailableError } from '../domain/errors.ts';
import type { LeadRecord } from '../domain/lead.ts';
import type { LeadResponse } from './lambda.ts';

export const LEAD_CREATED = 'Lead created successfully';

export const jsonResponse = (statusCode: number, body: unknown, headers: Record<string, string> = {}): LeadResponse => ({
  statusCode,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(body),
});

export const leadCreated = (lead: LeadRecord | undefined): LeadResponse =>
  jsonResponse(200, { status: true, message: LEAD_CREATED, ...(lead && { data: lead }) });

/** The answer to a failed request: the refusal the contract names, or a 500 that says nothing inside. */
export const failure = (error: unknown, requestId: string): LeadResponse => {
  if (error instanceof FieldValidationError) {
    return jsonResponse(error.status, { status: false, message: error.message, errors: error.errors });
  }
  if (error instanceof ServiceUnavailableError) {
    return jsonResponse(error.status, { status: false, message: error.message }, { 'retry-after': String(error.retryAfterSeconds) });
  }
  if (error instanceof LeadIntakeError) {
    return jsonResponse(error.status, { status: false, message: error.message });
  }
  return jsonResponse(500, { status: false, message: `Lead could not be created (request ${requestId})` });
};
