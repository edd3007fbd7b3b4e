/**
 * What a rejection item is, apart from how it is written: the record without its storage attributes
 * (keys, type, expiry, and the partition keys of its person lookup items). Shared by the listing and
 * by a person's access (shared/dynamodb/people.ts), so both answer the same record.
 */
import type { Rejection } from '../domain/ports.ts';

export const rejectionOfItem = ({ pk: _pk, sk: _sk, item_type: _type, expires_at: _expires, person_refs: _refs, ...rejection }: Record<string, any>): Rejection =>
  rejection as Rejection;
