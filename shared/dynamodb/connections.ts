/**
 * Connections a webhook authenticates with a key of their own (a Google Ads form; later a project's
 * call number), as seeds and operators change them (CONTRACT.md section 14): applying a seed never
 * brings back what was rotated or removed. A seed adds what is missing; it changes a stored
 * connection's project and campaign, never its key; and a removal leaves the connection's item as a
 * **removal tombstone** (`removed_at`, no key hash, no target) instead of deleting it, so a later seed
 * can tell "removed" from "never connected". An operator's explicit connect may reuse a tombstone.
 *
 * The webhook's reads treat a tombstone as no connection, and its guard (a condition on the key hash)
 * never holds on one, since a tombstone has no key hash.
 */
import type { SeedOutcome } from '../domain/ports.ts';

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

export type ConnectionState<C> = { readonly state: 'absent' } | { readonly state: 'removed' } | { readonly state: 'connected'; readonly connection: C };

export interface SeededConnection<C> {
  readonly accountId: string;
  /** The connection's stored state, read consistently. */
  state(): Promise<ConnectionState<C>>;
  accountOf(connection: C): string;
  /** Writes the seed's connection only where no item is (conditioned so); false when one appeared. */
  insert(): Promise<boolean>;
  /** Moves the account's connection to the seed's project and campaign, its key untouched; false when it is no longer the account's. */
  reconnect(): Promise<boolean>;
}

/**
 * Applies one seed entry. Every write is conditioned on what was read, so a removal or another
 * account's connect landing in between is read again, never overwritten.
 */
export const seedConnection = async <C>(seed: SeededConnection<C>): Promise<SeedOutcome> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await seed.state();
    if (stored.state === 'removed') return 'kept_removed';
    if (stored.state === 'connected') {
      if (seed.accountOf(stored.connection) !== seed.accountId) return 'connected_to_another_account';
      if (await seed.reconnect()) return 'reconnected';
      continue;
    }
    if (await seed.insert()) return 'added';
  }
  return 'connected_to_another_account';
};
