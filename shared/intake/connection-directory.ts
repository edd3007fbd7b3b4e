/**
 * The connections one kind's deliveries name (Google's forms, call numbers, the next sources' numbers),
 * as the intake reads them: cached per container for the configuration TTL like API keys and accounts,
 * so a warm delivery spends no round trip on its connection (one GetItem cold). Only what was found is
 * cached: a connection not found is read again on every delivery, so one connected a moment ago works
 * at once. A cached connection may be older than a rotation, a removal or a move: the delivery's write
 * carries its guard and, refused, the intake forgets it here and reads it afresh (receivedAtOnce).
 *
 * One class for every kind: the reader is the connection store's reader of that kind (its key shape is
 * the store's data), and a kind each account connects on its own is looked up under the account.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ConnectionCache } from '../domain/connection-cache.ts';
import type { Connection, ConnectionReader } from '../domain/ports.ts';

/** What an unknown connection's key is compared with, so it costs the same comparison as a wrong key. */
const NO_CONNECTION_HASH = createHash('sha256').update('no connection has this key').digest('hex');

/**
 * Whether a presented key is the one whose hash is stored, compared in constant time over the two
 * digests (the time tells nothing about how much of the key was right).
 */
const keyMatches = (presented: string, storedHash: string): boolean => {
  const expected = Buffer.from(storedHash, 'hex');
  const actual = createHash('sha256').update(presented, 'utf8').digest();
  return expected.length === actual.length && timingSafeEqual(actual, expected);
};

export class ConnectionDirectory {
  readonly #reader: ConnectionReader;
  readonly #cache: ConnectionCache<Connection>;

  /** `reader`: the connection store's reader of one kind. */
  constructor(reader: ConnectionReader, options: { ttlMs: number; now?: () => number }) {
    this.#reader = reader;
    this.#cache = new ConnectionCache(options);
  }

  /** The connection of that id (under the account, for a kind each account connects on its own); undefined when none. */
  async find(id: string, accountId?: string): Promise<Connection | undefined> {
    return this.#cache.get(cacheKey(id, accountId)) ?? this.#load(id, accountId);
  }

  /**
   * The connection of that id when `key` is its key; undefined for a missing id or key, an unknown
   * connection, one stored without a key, and a wrong key alike. A key that does not match a cached
   * connection re-reads it once (its key may have just been rotated).
   */
  async authenticate(id: string | undefined, key: string | undefined): Promise<Connection | undefined> {
    if (id === undefined || !key) return undefined;
    const cached = this.#cache.get(cacheKey(id));
    if (cached?.keyHash !== undefined && keyMatches(key, cached.keyHash)) return cached;
    const found = await this.#load(id);
    const matches = keyMatches(key, found?.keyHash ?? NO_CONNECTION_HASH);
    return found?.keyHash !== undefined && matches ? found : undefined;
  }

  /** Drops a cached connection: a write found it changed, so the next read is afresh. */
  forget(id: string, accountId?: string): void {
    this.#cache.forget(cacheKey(id, accountId));
  }

  async #load(id: string, accountId?: string): Promise<Connection | undefined> {
    const found = await this.#reader.findConnection(id, accountId);
    if (found) this.#cache.set(cacheKey(id, accountId), found);
    else this.#cache.forget(cacheKey(id, accountId));
    return found;
  }
}

const cacheKey = (id: string, accountId?: string) => (accountId === undefined ? id : `${accountId}\n${id}`);
