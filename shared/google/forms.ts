/**
 * Google Ads lead forms connected to accounts (CONTRACT.md section 10), like API keys: each form is
 * connected to one account, project and campaign, with a key of its own that Google sends back in
 * every delivery (`google_key`). The key is stored only as its SHA-256 hash and shown once, when the
 * form is connected or its key rotated: the one connection lifecycle (shared/domain/connection-admin.ts)
 * does that from the forms' declaration (connections.ts); the webhook checks deliveries with GoogleFormDirectory.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ConnectionCache } from '../domain/connection-cache.ts';
import { connectionIdOf } from '../domain/connection-ids.ts';
import type { ConnectionReader, GoogleFormConnection } from '../domain/ports.ts';
import { InvalidGoogleKeyError } from './errors.ts';
import { googleFormConnectionKey } from './wire-names.ts';

/** Google's form ids are 64-bit integers: their decimal digits, with no leading zero (the forms' declared id rule). */
export const isGoogleFormId = (text: string): boolean => connectionIdOf(googleFormConnectionKey, text) !== undefined;

/**
 * Whether a presented key is the one whose hash is stored, compared in constant time over the two
 * digests (the time tells nothing about how much of the key was right).
 */
const keyMatches = (presented: string, storedHash: string): boolean => {
  const expected = Buffer.from(storedHash, 'hex');
  const actual = createHash('sha256').update(presented, 'utf8').digest();
  return expected.length === actual.length && timingSafeEqual(actual, expected);
};

/** What an unknown form's key is compared with, so an unknown form costs the same comparison as a wrong key. */
const NO_FORM_HASH = createHash('sha256').update('no form has this key').digest('hex');

// ---- The webhook's check ---------------------------------------------------------------------------

/**
 * Connected forms by id, cached per container for the configuration TTL like API keys, so a warm
 * delivery spends no round trip on its form. Only connected forms are cached; a key that does not
 * match a cached form re-reads the form once (its key may have just been rotated), and a form not
 * found is read again on every delivery, so a form connected a moment ago works at once. A cached
 * form may be older than a rotation, a removal or a move: the delivery's write checks the form as
 * cached (ConnectionGuard) and, refused, the webhook forgets it here and authenticates the delivery
 * again on a fresh read (receivedAtOnce), so an old key stores nothing from the moment it is rotated or
 * removed (CONTRACT.md section 10), and a moved form's lead lands in its new project (section 14).
 */
export class GoogleFormDirectory {
  readonly #reader: ConnectionReader;
  readonly #cache: ConnectionCache<GoogleFormConnection>;

  constructor(reader: ConnectionReader, options: { ttlMs: number; now?: () => number }) {
    this.#reader = reader;
    this.#cache = new ConnectionCache(options);
  }

  /**
   * The connection of the form the delivery names, when its key is the form's; otherwise
   * InvalidGoogleKeyError, the same for a missing form id, an unknown form and a wrong or missing key.
   */
  async authenticate(formId: string | undefined, key: string | undefined): Promise<GoogleFormConnection> {
    if (formId === undefined || !isGoogleFormId(formId) || !key) throw new InvalidGoogleKeyError();
    const cached = this.#cache.get(formId);
    if (cached?.keyHash !== undefined && keyMatches(key, cached.keyHash)) return cached;
    const form = await this.#load(formId);
    const matches = keyMatches(key, form?.keyHash ?? NO_FORM_HASH);
    // A form stored without a key hash is connected to no key: refused like an unknown form.
    if (!form?.keyHash || !matches) throw new InvalidGoogleKeyError();
    return form;
  }

  /** Drops a cached form: its write found it rotated, removed or moved, so the next read is afresh. */
  forget(formId: string): void {
    this.#cache.forget(formId);
  }

  async #load(formId: string): Promise<GoogleFormConnection | undefined> {
    // The reader is the google_form kind's store: what it finds is a form.
    const form = (await this.#reader.findConnection(formId)) as GoogleFormConnection | undefined;
    if (form) this.#cache.set(formId, form);
    else this.#cache.forget(formId);
    return form;
  }
}
