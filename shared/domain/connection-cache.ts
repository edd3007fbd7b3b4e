/**
 * Connections a container has read (Google's forms, call numbers), kept for the configuration TTL like
 * API keys and accounts, so a warm delivery spends no round trip on its connection. Only what was found
 * is kept: what is not connected is read again on every delivery, so a connection made a moment ago
 * works at once. At most 1,000 per container, the oldest dropped first.
 */
const MAX_CACHED_CONNECTIONS = 1000;

export class ConnectionCache<Connection> {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { readonly connection: Connection; readonly expiresAt: number }>();

  constructor({ ttlMs, now = Date.now }: { ttlMs: number; now?: () => number }) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** The connection read under `key` within the TTL; undefined when none, or read longer ago. */
  get(key: string): Connection | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt > this.#now()) return entry.connection;
    this.#entries.delete(key);
    return undefined;
  }

  /** Keeps a connection just read. */
  set(key: string, connection: Connection): void {
    this.#entries.delete(key);
    if (this.#entries.size >= MAX_CACHED_CONNECTIONS) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { connection, expiresAt: this.#now() + this.#ttlMs });
  }

  /** Drops a connection: a write found it changed, so the next delivery reads it afresh. */
  forget(key: string): void {
    this.#entries.delete(key);
  }
}
