/**
 * The numbers an account connects to its projects (CONTRACT.md section 13): a call to a connected
 * number becomes a lead of that number's project and campaign. A number is its last 10 digits
 * (`+91 80 4718 1234`, `080-4718-1234` and `8047181234` are one number), connected per account. The
 * one connection lifecycle (shared/domain/connection-admin.ts) connects them from their declaration
 * (connections.ts); the webhook reads connections through CallNumberDirectory.
 *
 * Numbers are connections of the one connection store (shared/domain/ports.ts ConnectionRegistry),
 * of the kind each account connects on its own (`call_number`): two accounts may list one number, and
 * neither blocks the other. A removed number is remembered as removed, so applying a seed again never
 * connects it back (CONTRACT.md section 14); connecting it again by hand does.
 */
import { ConnectionCache } from '../domain/connection-cache.ts';
import { connectionIdOf } from '../domain/connection-ids.ts';
import type { Connection, ConnectionGuard, ConnectionReader } from '../domain/ports.ts';
import { callNumberConnectionKey } from './wire-names.ts';

/** A number connected to a project and campaign of an account. */
export interface CallNumberConnection {
  readonly accountId: string;
  /** The number's last 10 digits. */
  readonly number: string;
  readonly projectId: string;
  readonly campaignId: string;
  readonly connectedAt: string;
}

const callNumberConnectionOf = (connection: Omit<Connection, 'keyHash'>): CallNumberConnection => ({
  accountId: connection.accountId,
  number: connection.id,
  projectId: connection.projectId,
  campaignId: connection.campaignId,
  connectedAt: connection.connectedAt,
});

/** A number's last 10 digits (any Unicode digits read as ASCII, everything else dropped); undefined with fewer than 10. */
export const callNumberOf = (text: string): string | undefined => connectionIdOf(callNumberConnectionKey, text);

// ---- The webhook's read --------------------------------------------------------------------------------

/**
 * Connected numbers, cached per container for the configuration TTL like API keys and accounts, so a
 * warm call spends no round trip on its number. Only connected numbers are cached: a number not
 * connected is read again on every call, so a number connected a moment ago works at once. A cached
 * number may be older than a removal or a move: the call's write checks it as cached
 * (callNumberGuard) and, refused, the webhook forgets it here and reads it afresh (receivedAtOnce).
 */
export class CallNumberDirectory {
  readonly #reader: ConnectionReader;
  readonly #cache: ConnectionCache<CallNumberConnection>;

  /** `reader`: the connection store's reader of kind `call_number`. */
  constructor(reader: ConnectionReader, options: { ttlMs: number; now?: () => number }) {
    this.#reader = reader;
    this.#cache = new ConnectionCache(options);
  }

  async connection(accountId: string, number: string): Promise<CallNumberConnection | undefined> {
    const key = `${accountId}\n${number}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const found = await this.#reader.findConnection(number, accountId);
    if (!found) return undefined;
    const connection = callNumberConnectionOf(found);
    this.#cache.set(key, connection);
    return connection;
  }

  /** Drops a cached number: a call's write found it removed or moved, so the next read is afresh. */
  forget(accountId: string, number: string): void {
    this.#cache.forget(`${accountId}\n${number}`);
  }
}

/** The guard of a call's writes: the number still connected to the account, to the project and campaign it was read with. */
export const callNumberGuard = (connection: CallNumberConnection): ConnectionGuard => ({
  kind: callNumberConnectionKey.kind,
  shape: callNumberConnectionKey.shape,
  id: connection.number,
  accountId: connection.accountId,
  projectId: connection.projectId,
  campaignId: connection.campaignId,
});
