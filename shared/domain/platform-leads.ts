/**
 * Leads an ad platform delivers with its own lead id (Meta's leadgen id, Google's lead_id): the id is
 * the idempotency key of the lead's own transaction (shared/dynamodb/leads.ts), so a redelivery, or
 * simultaneous deliveries, of one id store one lead. Written once for every platform.
 */
import { createHash } from 'node:crypto';
import type { IdempotencyClaim } from './ports.ts';

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
