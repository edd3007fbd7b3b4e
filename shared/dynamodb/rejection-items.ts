/**
 * What a rejection item is, apart from how it is written: the record without its storage attributes
 * (keys, type, expiry, its reason index key, the partition keys of its person lookup items and the key
 * of its Idempotency-Key's record), with
 * a suppressed counter's per-reason counts gathered. Shared by the listing (rejection-archive.ts) and
 * by a person's access (people.ts), so both answer the same record.
 */
import type { StoredRejection } from '../domain/ports.ts';
import { REASON_COUNT_PREFIX, REJECTION_REASON_KEY } from './rejections.ts';

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
    if (name.startsWith(REASON_COUNT_PREFIX)) reasons[name.slice(REASON_COUNT_PREFIX.length)] = Number(value);
    else record[name] = typeof value === 'bigint' || name === 'count' ? Number(value) : value;
  }
  // Records written before ids existed: their request id and time stand in.
  return { ...record, ...(item.reason === 'suppressed' && { reasons }), id: item.id ?? item.requestId, created_at: item.created_at ?? item.at } as StoredRejection;
};
