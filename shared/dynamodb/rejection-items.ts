/**
 * What a rejection item is (docs/data-model.md), apart from how it is written or read: its keys, its
 * shard, its reason index key, the attributes a suppressed counter counts per reason, and the record
 * it holds. The one module that owns the shape, as lead-items.ts does for leads: the request path's
 * write (rejections.ts), the listing (rejection-archive.ts) and a person's access and erasure
 * (people.ts) all build and read the item through it. No SDK import.
 *   REJECTIONS#<account>#<shard> / <created_at>#<id>   a rejection record, expiring after 30 days
 *     reason_pk = REJECTIONS#<account>#<shard>#<reason>  (index by_reason, sort key sk)
 */
import { createHash } from 'node:crypto';
import type { Rejection, StoredRejection } from '../domain/ports/rejections.ts';
import { ulidTime } from '../domain/lead-id.ts';
import { currentReasonOf, REJECTION_DAYS } from '../domain/rejections.ts';
import { rejectionReasonIndex } from './tables.ts';

export const REJECTION_SECONDS = REJECTION_DAYS * 24 * 60 * 60;
/** Partition keys per account: each takes up to 1,000 writes a second, so 8 of them take a flood of 8 KiB records at ~1,000 a second. */
export const REJECTION_SHARDS = 8;
/** The index that pages one reason's records without reading the others. */
export const REJECTION_REASON_INDEX = rejectionReasonIndex.name;
export const REJECTION_REASON_KEY = rejectionReasonIndex.partitionKey;
/** A suppressed counter's per-reason counts, each an attribute of its own: `count_<reason>`. */
export const REASON_COUNT_PREFIX = 'count_';

/** The shard of a record, from its id. */
export const rejectionShard = (id: string): number => createHash('sha256').update(id).digest().readUInt32BE(0) % REJECTION_SHARDS;
export const rejectionsPk = (accountId: string, shard: number) => `REJECTIONS#${accountId}#${shard}`;
export const reasonPk = (accountId: string, shard: number, reason: string) => `${rejectionsPk(accountId, shard)}#${reason}`;
/** The item key of a record, from its id alone: the id's time is its created_at, and its shard comes from it. */
export const rejectionKeyOf = (accountId: string, rejectionId: string): { pk: string; sk: string } | undefined => {
  const time = ulidTime(rejectionId);
  if (time === undefined) return undefined;
  return { pk: rejectionsPk(accountId, rejectionShard(rejectionId)), sk: `${new Date(time).toISOString()}#${rejectionId}` };
};

/** Before the shards: one partition per account, read (unfiltered) until its records expire. */
export const legacyRejectionsPk = (accountId: string) => `REJECTIONS#${accountId}`;

/**
 * The item of a record: its keys and storage attributes around the rejection as kept (`browserKey` is
 * not stored), with a delivery's platform ids as attributes of their own (`google_lead_id`, `call_id`
 * and `provider`), where records have always kept them.
 */
export const rejectionItem = (accountId: string, id: string, createdAt: string, rejection: Rejection) => {
  const shard = rejectionShard(id);
  const { browserKey: _browserKey, platformIds, ...kept } = rejection;
  return {
    // First, so no name a descriptor declares can overwrite a key or an attribute of the record itself.
    ...platformIds,
    pk: rejectionsPk(accountId, shard),
    sk: `${createdAt}#${id}`,
    [REJECTION_REASON_KEY]: reasonPk(accountId, shard, rejection.reason),
    item_type: 'rejection',
    ...kept,
    id,
    created_at: createdAt,
    expires_at: Math.floor(Date.parse(createdAt) / 1000) + REJECTION_SECONDS,
  };
};

/**
 * The record of a rejection item, without its storage attributes (keys, type, expiry, its reason
 * index key, the partition keys of its person lookup items and the key of its Idempotency-Key's
 * record), with a suppressed counter's per-reason counts gathered. Shared by the listing
 * (rejection-archive.ts) and by a person's access (people.ts), so both answer the same record.
 */
export const rejectionOfItem = ({
  pk: _pk,
  sk: _sk,
  item_type: _type,
  expires_at: _expires,
  person_refs: _refs,
  idempotency_pk: _idempotency,
  [REJECTION_REASON_KEY]: _reason,
  ...item
}: Record<string, any>): StoredRejection => {
  const record: Record<string, unknown> = {};
  const reasons: Record<string, number> = {};
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(REASON_COUNT_PREFIX)) {
      const reason = currentReasonOf(name.slice(REASON_COUNT_PREFIX.length));
      reasons[reason] = (reasons[reason] ?? 0) + Number(value);
    } else record[name] = typeof value === 'bigint' || name === 'count' ? Number(value) : value;
  }
  // A record stored under a former name of its reason reads as today's (CONTRACT.md section 20).
  if (typeof record.reason === 'string') record.reason = currentReasonOf(record.reason);
  // Records written before ids existed: their request id and time stand in.
  return { ...record, ...(item.reason === 'suppressed' && { reasons }), id: item.id ?? item.requestId, created_at: item.created_at ?? item.at } as StoredRejection;
};
