/**
 * Connections a container has read (Google's forms, call numbers), kept for the configuration TTL like
 * API keys and accounts, so a warm delivery spends no round trip on its connection. Only what was found
 * is kept: what is not connected is read again on every delivery, so a connection made a moment ago
 * works at once. At most 1,000 per container, the oldest dropped first. A cached connection may be
 * older than a removal or a move: receivedAtOnce (below) makes that cost a re-read, never a lead in
 * the old project.
 */
import { ConnectionChangedError, ServiceUnavailableError } from './errors.ts';

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

/**
 * A delivery received at once on what its connection is now, whatever the cache (CONTRACT.md section
 * 14): `receive` runs on the connection as read (cached, perhaps), and its write carries the
 * connection's guard. A guard that fails (the connection removed, moved or its key rotated since it
 * was read) stored nothing: the connection is dropped from the cache (`forget`) and the delivery runs
 * once more on a fresh read (`afresh`), so a moved connection's lead lands in its new project and a
 * removed one is answered as never connected. Written once for every source whose deliveries name a
 * connection. Changed again between that read and its write a moment later: nothing stored, 503, and
 * the platform's retry reads it anew.
 */
export const receivedAtOnce = async <R>(receive: (afresh: boolean) => Promise<R>, forget: () => void): Promise<R> => {
  try {
    return await receive(false);
  } catch (error) {
    if (!(error instanceof ConnectionChangedError)) throw error;
  }
  forget();
  try {
    return await receive(true);
  } catch (error) {
    if (error instanceof ConnectionChangedError) throw new ServiceUnavailableError(CHANGED_AGAIN_RETRY_AFTER_SECONDS, { cause: error });
    throw error;
  }
};

/** Seconds a platform waits before retrying a delivery whose connection changed twice while it was received. */
const CHANGED_AGAIN_RETRY_AFTER_SECONDS = 1;
