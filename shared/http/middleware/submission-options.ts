import { createHash } from 'node:crypto';
import { InvalidIdempotencyKeyError } from '../../domain/errors.ts';
import { step, type LeadStep } from '../lead-chain.ts';
import { header, type LeadContext, type LeadEvent, type WithBody, type WithOptions } from '../lambda.ts';
import { CHALLENGE_TOKEN_FIELD } from '../../domain/challenge.ts';
import { JsonNumber } from '../../schemas/json-number.ts';

const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** `x-dry-run: true`, any case, surrounding spaces ignored. */
export const dryRunRequested = (event: LeadEvent): boolean => /^true$/i.test(header(event, 'x-dry-run')?.trim() ?? '');

/**
 * The sender's options beyond the contract: `Idempotency-Key` (retry safety) and `x-dry-run: true`
 * (check without storing). Neither changes an answer the contract fixes when absent.
 */
export const submissionOptions = (endpoint: string): LeadStep<LeadContext & WithBody, WithOptions> =>
  step<LeadContext & WithBody, WithOptions>({
  before: (request) => {
    const { event, context } = request;
    context.dryRun = dryRunRequested(event);
    const key = header(event, 'idempotency-key');
    if (key === undefined || key === '') return;
    if (!IDEMPOTENCY_KEY.test(key)) throw new InvalidIdempotencyKeyError();
    context.idempotency = { key, requestHash: requestHashOf(endpoint, event, context.body) };
  },
  });

/**
 * What a key's request is recognised by: the endpoint and the exact body (a retry sends the same bytes;
 * anything else is another lead). A body with a challenge token is taken without it: the token proves
 * a visitor, it is not part of the submission, and it is single-use, so the page that retries with the
 * same key after a refused or expired token (a new token) is sending the same submission (CONTRACT.md
 * section 14: a quarantine's release and a later request with its key are one lead). Such a body is
 * digested member by member, as parsed, under a prefix of its own.
 */
/** JSON text of a parsed body, its numbers as they were written, so the digest tells apart what the bytes did. */
const jsonText = (value: unknown): string => {
  if (value instanceof JsonNumber) return value.source;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (typeof value === 'object' && value !== null) return `{${Object.entries(value).map(([name, member]) => `${JSON.stringify(name)}:${jsonText(member)}`).join(',')}}`;
  return JSON.stringify(value);
};

const requestHashOf = (endpoint: string, event: LeadEvent, parsed: LeadContext['body']): string => {
  const digest = createHash('sha256').update(`${endpoint}\n`);
  if (parsed && Object.hasOwn(parsed, CHALLENGE_TOKEN_FIELD)) {
    const { [CHALLENGE_TOKEN_FIELD]: _token, ...submission } = parsed;
    return digest.update('without-challenge-token\n').update(jsonText(submission)).digest('hex');
  }
  return digest.update(Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8')).digest('hex');
};
