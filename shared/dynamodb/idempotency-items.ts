/**
 * What an idempotency record is, apart from the write it rides in: its key, scoped to the account, and
 * its expiry. The lead's transaction (leads.ts) and a platform delivery's rejection record
 * (rejections.ts `recordOnce`) claim the same key, so one delivery id stores a lead or a record, once.
 *   IDEMPOTENCY#<account>#<sha256 of key> / IDEMPOTENCY   request_hash, expires_at, and lead (JSON) or rejection_id
 */
import { epochSeconds, sha256 } from './requests.ts';
import type { IdempotencyClaim } from '../domain/ports.ts';

/** How long an idempotency key holds unless its claim says otherwise. */
export const IDEMPOTENCY_SECONDS = 24 * 60 * 60;

export const idempotencyPk = (accountId: string, key: string) => `IDEMPOTENCY#${accountId}#${sha256(key)}`;

/**
 * The claim as a transaction item: written only if the key is unused (or expired, since DynamoDB's TTL
 * deletes lazily), handing the existing record back when it is not. `holds` is what the record answers
 * a later claim with: the lead stored, or the id of the rejection record kept instead.
 */
export const idempotencyClaimPut = (
  table: string,
  accountId: string,
  { key, requestHash, ttlSeconds = IDEMPOTENCY_SECONDS }: IdempotencyClaim,
  createdAt: string,
  holds: { readonly lead: string } | { readonly rejection_id: string },
) => ({
  Put: {
    TableName: table,
    Item: {
      pk: idempotencyPk(accountId, key),
      sk: 'IDEMPOTENCY',
      item_type: 'idempotency_key',
      request_hash: requestHash,
      ...holds,
      created_at: createdAt,
      expires_at: epochSeconds(createdAt) + ttlSeconds,
    },
    ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
    ExpressionAttributeValues: { ':now': epochSeconds(createdAt) },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  },
});
