/**
 * What a source's connections (Google forms, call numbers, WhatsApp numbers) need from the connection
 * store: the request path's read and guard, and the lifecycle's writes.
 */
import type { ConnectionShape } from '../../sources/connection-kind.ts';
import type { DeclaredConnectionKind } from '../../sources/registry.ts';

/**
 * The kinds of connection a source's deliveries name, each connected by an account to one of its
 * projects and campaigns: a Google Ads lead form (CONTRACT.md section 10), a project's call number
 * (section 13). Each is declared in its source's folder (shared/sources/connection-kind.ts), and the
 * union is the declared sources' (the registry's), never written by hand.
 */
export type ConnectionKind = DeclaredConnectionKind;

/** A connection as stored. A kind whose deliveries carry a key of their own (Google's forms) keeps only its hash. */
export interface Connection {
  readonly kind: ConnectionKind;
  /** What deliveries name it by: Google's form id (its exact decimal digits), a call number's last 10 digits. */
  readonly id: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly campaignId: string;
  /** SHA-256 hex of the connection's own key, for kinds whose deliveries carry one. */
  readonly keyHash?: string;
  readonly connectedAt: string;
}

/**
 * The connection a delivery was authenticated against, as the container trusted it (its cache may be
 * older than a rotation, a removal or a move). A write given a guard stores nothing, and throws
 * ConnectionChangedError, unless the connection is still the account's, still to that project and
 * campaign (and with that key hash, when it has one), checked in the write itself (CONTRACT.md section
 * 10: a rotated or removed key answers 401 at once; section 14: a removed or moved connection takes
 * effect at once, whatever the cache).
 */
export interface ConnectionGuard {
  readonly kind: ConnectionKind;
  /** Its kind's key shape (its declaration's), so the write finds the item without a table of every kind. */
  readonly shape: ConnectionShape;
  readonly id: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly campaignId: string;
  readonly keyHash?: string;
}

/** The webhook's read of a connection: one item. */
export interface ConnectionReader {
  /**
   * The connection of that id; undefined when none, or removed. A kind each account connects on its
   * own (call numbers) is found under the account, which is then required.
   */
  findConnection(id: string, accountId?: string): Promise<Connection | undefined>;
}

/** One kind's connections as their lifecycle (CLI, seed, admin API) manages them; each write atomic. */
export interface ConnectionRegistry extends ConnectionReader {
  /** Connects anew (over a removal tombstone too); false, and nothing written, when it is connected already. */
  insertConnection(connection: Connection): Promise<boolean>;
  /**
   * Moves a connection, as the caller just read it, to another project and campaign; false, and nothing
   * written, when it is no longer connected to that account (the write is conditioned on it).
   */
  reconnect(connection: Omit<Connection, 'keyHash'>, projectId: string, campaignId: string): Promise<boolean>;
  /** Replaces the connection's key hash; undefined when none (of that account, when given) is connected. */
  replaceKey(id: string, keyHash: string, accountId?: string): Promise<Connection | undefined>;
  /** Disconnects, leaving a removal tombstone a seed never brings back; false when none (of that account, when given) is connected. */
  removeConnection(id: string, accountId?: string): Promise<boolean>;
  /** The account's connections of this kind, by id (never a key hash). */
  listConnections(accountId: string): Promise<Omit<Connection, 'keyHash'>[]>;
  /**
   * A seed file's connection: added when never connected; moved to the seed's project and campaign (its
   * key, rotated or not, kept) when connected to the account; left alone when removed; refused,
   * nothing written, when another account has it (CONTRACT.md section 14).
   */
  seed(connection: Connection): Promise<SeedOutcome>;
}

/** What applying a seed did to one connection (a Google form, a call number). */
export type SeedOutcome = 'added' | 'reconnected' | 'kept_removed' | 'connected_to_another_account';
