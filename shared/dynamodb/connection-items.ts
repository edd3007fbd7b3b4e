/**
 * What a connection's items are (connections.ts stores them): the keys of a kind's declared shape, and a
 * delivery's guard as a transaction item. No store class and no SDK import, so a lead function's bundle
 * carries only what its writes need.
 */
import { ConnectionChangedError } from '../domain/errors.ts';
import type { ConnectionGuard } from '../domain/ports/connections.ts';
import type { ConnectionShape, PlatformWideShape } from '../sources/connection-kind.ts';
import type { CancellationReason } from './requests.ts';
import type { NamedItems, TransactItem } from './transactions.ts';

// Each kind's key shape is its declaration's (shared/sources/connection-kind.ts), in its source's folder.
export type { AccountScopedShape, ConnectionShape, PlatformWideShape } from '../sources/connection-kind.ts';

/** The name a guard's ConditionCheck goes under in a transaction (transactions.ts). */
export const CONNECTION_GUARD = 'connection_guard';

/** The key of a connection's item; an account-scoped kind's needs the account. */
export const itemKey = (shape: ConnectionShape, id: string, accountId?: string) => {
  if (shape.scope === 'platform') return { pk: `${shape.partitionPrefix}${id}`, sk: shape.itemSortKey };
  if (accountId === undefined) throw new TypeError(`a connection keyed under its account (${shape.partitionPrefix}) is found by account and id`);
  return { pk: `${shape.partitionPrefix}${accountId}`, sk: `${shape.sortPrefix}${id}` };
};

/** The partition of an account's listing of a kind's connections. */
export const listingPartition = (shape: ConnectionShape, accountId: string) => (shape.scope === 'platform' ? `${shape.listingPrefix}${accountId}` : `${shape.partitionPrefix}${accountId}`);

/** A platform-wide kind's listing item (an account-scoped kind's item is its own listing). */
export const listingKey = (shape: PlatformWideShape, accountId: string, id: string) => ({ pk: listingPartition(shape, accountId), sk: `${shape.listingSortPrefix}${id}` });

/**
 * A delivery's guard as a transaction item: the connection's item still names that account, that
 * project and that campaign (and that key hash, for a kind with keys). It rides in the write the
 * delivery makes anyway (the lead's transaction, or its rejection record's), so a connection rotated,
 * removed or moved to another project is refused at once at no extra round trip, whatever the
 * container cached (CONTRACT.md section 14). The project and campaign are what a move changes, so they
 * are what is compared: a connection moved away and back again passes, and its lead lands where it
 * points now. The functions may ConditionCheckItem only items of their kind's partition shape
 * (lib/constructs/lead-tables.ts).
 */
export const connectionGuardCheck = (configTable: string, guard: ConnectionGuard): TransactItem => ({
  ConditionCheck: {
    TableName: configTable,
    Key: itemKey(guard.shape, guard.id, guard.accountId),
    // A tombstone keeps its account but no target and no key hash: it never passes.
    ConditionExpression:
      'account_id = :guardAccount AND project_id = :guardProject AND campaign_id = :guardCampaign AND attribute_not_exists(removed_at)' +
      (guard.keyHash === undefined ? '' : ' AND key_hash = :guardHash'),
    ExpressionAttributeValues: {
      ':guardAccount': guard.accountId,
      ':guardProject': guard.projectId,
      ':guardCampaign': guard.campaignId,
      ...(guard.keyHash !== undefined && { ':guardHash': guard.keyHash }),
    },
  },
});

/**
 * A delivery's guard as its write's item, on the Config table: given to the lead store and rejection log
 * of the functions whose deliveries name a connection (shared/webhook-runtime.ts, the repository), so
 * the API key endpoints' bundles, whose writes carry no guard, do not carry it.
 */
export type ConnectionGuardItem = (guard: ConnectionGuard) => TransactItem;

export const connectionGuardItem =
  (configTable: string): ConnectionGuardItem =>
  (guard) =>
    connectionGuardCheck(configTable, guard);

/**
 * Throws ConnectionChangedError when the guard's item of the cancelled transaction failed its
 * condition: read by its name, so it is never taken for a duplicate or a used idempotency key.
 */
export const checkConnectionGuard = (items: NamedItems<string>, reasons: readonly CancellationReason[], guard: ConnectionGuard | undefined): void => {
  if (guard && items.failed(reasons, CONNECTION_GUARD)) throw new ConnectionChangedError(guard.kind, guard.id);
};


// ---- Removal tombstones (CONTRACT.md section 14: a seed never brings back a removed connection) ------

export const REMOVED_AT = 'removed_at';
/** A condition: the item is a removal tombstone. */
export const REMOVED = `attribute_exists(${REMOVED_AT})`;
/** A condition: the item, if any, is not a removal tombstone. */
export const CONNECTED = `attribute_not_exists(${REMOVED_AT})`;

export const isRemoved = (item: Record<string, unknown>): boolean => item[REMOVED_AT] !== undefined;

/** The item a removal leaves: its key, what names it, and when; no key hash, no project or campaign. */
export const removalTombstone = (key: { pk: string; sk: string }, names: Record<string, string>, at = new Date()) => ({
  ...key,
  ...names,
  item_type: 'removed_connection',
  [REMOVED_AT]: at.toISOString(),
});
