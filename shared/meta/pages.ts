/**
 * Facebook pages an account has connected (CONTRACT.md section 8): each page's access token, and the
 * page's lead forms mapped to a project and campaign of the account. Page tokens are secrets: stored
 * sealed (KMS in AWS), opened only here, on the way to the Graph API, and never logged or listed.
 */
import type { SecretCipher } from '../sealed-secrets.ts';

/** Where a lead form's leads go. */
export interface MetaFormMapping {
  readonly projectID: string;
  readonly campaignID: string;
}

/** A page as stored: its token sealed by a PageTokenCipher. */
export interface StoredMetaPage {
  readonly pageId: string;
  readonly accountId: string;
  readonly sealedToken: string;
  readonly forms: ReadonlyMap<string, MetaFormMapping>;
  /** When the token was last set: what a listing shows instead of the token. */
  readonly tokenUpdatedAt?: string;
}

/** A page ready to read leads with: its token opened. */
export interface MetaPage {
  readonly pageId: string;
  readonly accountId: string;
  readonly accessToken: string;
  readonly forms: ReadonlyMap<string, MetaFormMapping>;
}

export interface MetaPageReader {
  findMetaPage(pageId: string): Promise<StoredMetaPage | undefined>;
}

/** Seals page tokens at rest. The page id is bound to the ciphertext: a token moved to another page does not open. */
export type PageTokenCipher = SecretCipher;

export interface MetaPageView {
  readonly page: MetaPage;
  /** True when the page came from the cache: a refusal may be the cache's fault, so re-read before one. */
  readonly cached: boolean;
  /** The page as stored now (re-read once). */
  current(): Promise<MetaPage | undefined>;
}

interface Cached {
  readonly page: MetaPage;
  readonly expiresAt: number;
}

/**
 * Pages by id, cached per container for the configuration TTL like accounts and keys (with the token
 * opened, so a warm lead costs no KMS call). Only pages that exist are cached.
 */
export class MetaPageDirectory {
  readonly #reader: MetaPageReader;
  readonly #cipher: PageTokenCipher;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, Cached>();

  constructor(reader: MetaPageReader, cipher: PageTokenCipher, { ttlMs, now = Date.now }: { ttlMs: number; now?: () => number }) {
    this.#reader = reader;
    this.#cipher = cipher;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  async find(pageId: string): Promise<MetaPageView | undefined> {
    const entry = this.#cache.get(pageId);
    if (entry && entry.expiresAt > this.#now()) return this.#view(entry.page, true);
    const page = await this.#load(pageId);
    return page && this.#view(page, false);
  }

  #view(page: MetaPage, cached: boolean): MetaPageView {
    let current: Promise<MetaPage | undefined> | undefined = cached ? undefined : Promise.resolve(page);
    return { page, cached, current: () => (current ??= this.#load(page.pageId)) };
  }

  async #load(pageId: string): Promise<MetaPage | undefined> {
    const stored = await this.#reader.findMetaPage(pageId);
    if (!stored) {
      this.#cache.delete(pageId);
      return undefined;
    }
    const page: MetaPage = {
      pageId,
      accountId: stored.accountId,
      accessToken: await this.#cipher.open(pageId, stored.sealedToken),
      forms: stored.forms,
    };
    if (this.#cache.size >= 1000) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(pageId, { page, expiresAt: this.#now() + this.#ttlMs });
    return page;
  }
}
