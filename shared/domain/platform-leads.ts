/**
 * Leads an ad platform delivers with its own lead id (Meta's leadgen id, Google's lead_id): the id is
 * the idempotency key of the lead's own transaction (shared/dynamodb/leads.ts), so a redelivery, or
 * simultaneous deliveries, of one id store one lead. Written once for every platform.
 */
import { createHash } from 'node:crypto';
import type { ConnectionGuard } from './ports/connections.ts';
import type { IdempotencyClaim, WriteClaim } from './ports/leads.ts';
import type { Rejection, RejectionLog } from './ports/rejections.ts';

/**
 * How long a platform's lead id holds: past Meta's ~36 hours and Google's retries, and past a
 * dead-letter queue's 14 days of retention, so a redriven message never stores a lead twice.
 */
export const PLATFORM_LEAD_IDEMPOTENCY_SECONDS = 15 * 24 * 60 * 60;

/**
 * A platform's lead id as idempotency claim: a key no Idempotency-Key header can spell (it holds a
 * newline), and a request hash of the id alone, so any redelivery of the id is a replay of its lead.
 */
export const platformLeadIdempotency = (keyPrefix: string, platform: string, leadId: string): IdempotencyClaim => ({
  key: `${keyPrefix}\n${leadId}`,
  requestHash: createHash('sha256').update(`${platform}\n${leadId}`).digest('hex'),
  ttlSeconds: PLATFORM_LEAD_IDEMPOTENCY_SECONDS,
});

/**
 * A webhook delivery's refusal, kept once per platform id (CONTRACT.md section 14: one platform id
 * stores at most one lead or one rejection record, never both, whether its deliveries come one after
 * another or at once; the first delivery decides). With the id's claim (the one its lead would be
 * stored under), the record and the claim are one write: `already_decided` when a lead or a record took
 * the claim first, and nothing is kept. A delivery without a platform id has nothing to keep once: its
 * record is kept as any. Given the delivery's connection, nothing is kept when it changed since it was
 * read (ConnectionChangedError). One function for every webhook source.
 */
export const recordRefusal = async (
  rejections: RejectionLog,
  accountId: string,
  rejection: Rejection,
  claim: IdempotencyClaim | undefined,
  guard?: ConnectionGuard,
  /** Items the record's write takes besides its claim (WriteClaim): one held by another write, nothing kept (ClaimHeldError). Only with a claim. */
  claims?: readonly WriteClaim[],
): Promise<'recorded' | 'already_decided'> => {
  if (claim) return rejections.recordOnce(accountId, rejection, claim, guard, claims);
  await rejections.record(accountId, rejection, guard);
  return 'recorded';
};
