/**
 * A kind whose deliveries carry the connection's own key (Google's forms, `connection-key`): a delivery's
 * connection is found only with its key. Its own module, so a source whose kind has no key carries none
 * of this (nor its hashing) in its bundle.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Connection } from '../domain/ports/connections.ts';
import { ConnectionDirectory } from './connection-directory.ts';

/**
 * Whether a presented key is the one whose hash is stored, compared in constant time over the two
 * digests (the time tells nothing about how much of the key was right).
 */
const keyMatches = (presented: string, storedHash: string): boolean => {
  const expected = Buffer.from(storedHash, 'hex');
  const actual = createHash('sha256').update(presented, 'utf8').digest();
  return expected.length === actual.length && timingSafeEqual(actual, expected);
};

/** What an unknown connection's key is compared with, so it costs the same comparison as a wrong key. */
const NO_CONNECTION_HASH = createHash('sha256').update('no connection has this key').digest('hex');

export class KeyedConnectionDirectory extends ConnectionDirectory {
  /**
   * The connection of that id when `key` is its key; undefined for a missing id or key, an unknown
   * connection, one stored without a key, and a wrong key alike. A key that does not match a cached
   * connection re-reads it once (its key may have just been rotated).
   */
  async authenticate(id: string | undefined, key: string | undefined): Promise<Connection | undefined> {
    if (id === undefined || !key) return undefined;
    const cached = this.cached(id);
    if (cached?.keyHash !== undefined && keyMatches(key, cached.keyHash)) return cached;
    const found = await this.load(id);
    const matches = keyMatches(key, found?.keyHash ?? NO_CONNECTION_HASH);
    return found?.keyHash !== undefined && matches ? found : undefined;
  }

  override lookup(named: { readonly id: string; readonly presentedKey?: string }): Promise<Connection | undefined> {
    return this.authenticate(named.id, named.presentedKey);
  }
}

