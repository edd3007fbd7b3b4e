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
import { ConnectionCache } from '../domain/connection-cache.ts';
import type { Connection, ConnectionReader } from '../domain/ports/connections.ts';

/** How the intake reads the connection a delivery names (intake.ts): one directory per source's kind. */
export interface ConnectionLookup {
  /** The connection the delivery names, when it is connected (and, for a keyed kind, its key is the one presented). */
  lookup(named: { readonly id: string; readonly accountId?: string; readonly presentedKey?: string }): Promise<Connection | undefined>;
  forget(id: string, accountId?: string): void;
}

export class ConnectionDirectory implements ConnectionLookup {
  readonly #reader: ConnectionReader;
  readonly #cache: ConnectionCache<Connection>;

  /** `reader`: the connection store's reader of one kind. */
  constructor(reader: ConnectionReader, options: { ttlMs: number; now?: () => number }) {
    this.#reader = reader;
    this.#cache = new ConnectionCache(options);
  }

  /** The connection of that id (under the account, for a kind each account connects on its own); undefined when none. */
  async find(id: string, accountId?: string): Promise<Connection | undefined> {
    return this.#cache.get(cacheKey(id, accountId)) ?? this.load(id, accountId);
  }

  lookup(named: { readonly id: string; readonly accountId?: string }): Promise<Connection | undefined> {
    return this.find(named.id, named.accountId);
  }

  /** Drops a cached connection: a write found it changed, so the next read is afresh. */
  forget(id: string, accountId?: string): void {
    this.#cache.forget(cacheKey(id, accountId));
  }

  /** The cached connection, if any (read within the TTL). */
  protected cached(id: string): Connection | undefined {
    return this.#cache.get(cacheKey(id));
  }

  /** Reads the connection, caching it when found. */
  protected async load(id: string, accountId?: string): Promise<Connection | undefined> {
    const found = await this.#reader.findConnection(id, accountId);
    if (found) this.#cache.set(cacheKey(id, accountId), found);
    else this.#cache.forget(cacheKey(id, accountId));
    return found;
  }
}

const cacheKey = (id: string, accountId?: string) => (accountId === undefined ? id : `${accountId}\n${id}`);
