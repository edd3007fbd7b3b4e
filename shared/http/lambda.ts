import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { KeyAccountView } from '../domain/account-directory.ts';
import type { ChallengeVerdict } from '../domain/challenge.ts';
import type { IdempotencyClaim } from '../domain/ports/leads.ts';
import type { LeadRecord } from '../domain/lead.ts';
import type { ValidatedFields } from '../schemas/validate.ts';

/** API Gateway HTTP API events (payload format 2.0), as the deployed API and the local server send. */
export type LeadEvent = APIGatewayProxyEventV2;
export interface LeadResponse {
  statusCode: number;
  headers: Record<string, string>;
  body?: string;
}

/**
 * What the middleware chain learns about a request and hands on, down to the handler. Each member is
 * set by the step that owns it (shared/http/lead-chain.ts): optional here, where the envelope's log line
 * and the rejection log (which may run before that step did) read it, and present in the context type
 * of every step and handler after it (Authenticated, WithBody, WithOptions, WithFields).
 */
export interface LeadContext extends Context {
  requestId: string;
  /** performance.now() when the request entered the chain, for its log line. */
  startedAt: number;
  account?: KeyAccountView;
  /** The account a request acts for when no API key names it (a Google Ads form's), for its log line. */
  accountId?: string;
  body?: Readonly<Record<string, unknown>>;
  fields?: ValidatedFields;
  /** The sender's Idempotency-Key and the digest of what it was sent with. */
  idempotency?: IdempotencyClaim;
  /** `x-dry-run: true`: every check, nothing stored. */
  dryRun?: boolean;
  /**
   * The Access-Control-Allow-Origin a browser key decided: the request's Origin as sent, or null for
   * none (a refused origin). Undefined: the stack's CORS setting applies.
   */
  allowOrigin?: string | null;
  /** A browser key's submission with the honeypot filled: answered as a new lead, nothing stored. */
  bot?: boolean;
  /** The answer an Idempotency-Key already gave, found before a check that could answer differently. */
  replay?: LeadRecord;
  /** A challenge key's verdict on the submission's token (CONTRACT.md section 11). */
  challenge?: ChallengeVerdict;
  /** Lead id and outcome for the request's log line. */
  leadId?: string;
  outcome?: string;
}

/** After the key's step (api-key-account.ts): the account and key the request acts for. */
export interface Authenticated {
  account: KeyAccountView;
}

/** After the body's step (json-object-body.ts): the body, a JSON object. */
export interface WithBody {
  body: Readonly<Record<string, unknown>>;
}

/** After the sender's options' step (submission-options.ts): dry run or not (its Idempotency-Key stays optional). */
export interface WithOptions {
  dryRun: boolean;
}

/** After field validation (lead-fields.ts): the validated fields. */
export interface WithFields {
  fields: ValidatedFields;
}

/** Header names are case-insensitive; API Gateway lower-cases them, other callers may not. */
export const header = (event: Pick<LeadEvent, 'headers'>, name: string): string | undefined => {
  const headers = event.headers ?? {};
  const direct = headers[name];
  if (direct !== undefined) return direct;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
};

export const httpMethod = (event: LeadEvent): string =>
  (event.requestContext?.http?.method ?? (event as unknown as { httpMethod?: string }).httpMethod ?? 'POST').toUpperCase();
