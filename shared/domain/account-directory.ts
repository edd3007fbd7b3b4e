import { hashApiKey, keyHasLapsed } from './api-keys.ts';
import { ClientNotFoundError, InvalidApiCredentialsError } from './errors.ts';
import type { AccountConfig, ApiKeyGrant } from './lead.ts';
import type { AccountReader, ApiKeyReader } from './ports/keys-and-accounts.ts';

/**
 * The account a request acts for, with a way to re-read its configuration. A configuration that came
 * from the cache may be stale: before refusing a lead for a project, campaign or sub source the cache
 * lacks, the domain asks for `current()`, so the cache never causes a wrong rejection.
 */
export interface AccountView {
  readonly config: AccountConfig;
  /** The configuration as stored now: re-read once, unless it was read during this request. */
  current(): Promise<AccountConfig>;
}

/** The account a request's API key acts for. */
export interface KeyAccountView extends AccountView {
  /** What the request's key allows (its endpoints, origins), read with the key. */
  readonly key: ApiKeyGrant;
}

export interface AccountDirectoryOptions {
  /** How long a container trusts a key and an account's configuration before re-reading them. */
  readonly ttlMs: number;
  /** Most keys and accounts kept per container; the oldest are dropped past it. */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

interface Cached<T> {
  readonly value: T;
  readonly expiresAt: number;
}

export { hashApiKey };

/**
 * Finds the account of an API key, caching active keys and account configuration per container for
 * a short TTL so a warm request spends no round trip on them. Only positive answers are cached: an
 * unknown or inactive key, and an account that does not exist, are read again on every request, so a
 * key created or re-activated a moment ago works at once. The price of the TTL is that a revoked key
 * keeps working for up to the TTL in containers that cached it.
 */
export class AccountDirectory {
  readonly #keys: ApiKeyReader;
  readonly #accounts: AccountReader;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #cachedKeys = new Map<string, Cached<ApiKeyGrant>>();
  readonly #cachedAccounts = new Map<string, Cached<AccountConfig>>();

  constructor(keys: ApiKeyReader, accounts: AccountReader, options: AccountDirectoryOptions) {
    this.#keys = keys;
    this.#accounts = accounts;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The account of the key; throws InvalidApiCredentials (unknown, inactive, expired, or past its
   * rotation grace) or ClientNotFound as the contract says. Expiry and grace are checked against the
   * clock on every request, cached or not, so a key stops at its time, not up to a TTL later.
   */
  async authenticate(apiKey: string): Promise<KeyAccountView> {
    const key = await this.#grantOf(hashApiKey(apiKey));
    return { key, ...(await this.account(key.accountId)) };
  }

  /** An account by id, through the same cache (Meta leads name their account by page, not by key). */
  async account(accountId: string): Promise<AccountView> {
    const cached = this.#fresh(this.#cachedAccounts, accountId);
    if (cached) return this.#view(accountId, cached, false);
    return this.#view(accountId, await this.#load(accountId), true);
  }

  async #grantOf(keyHash: string): Promise<ApiKeyGrant> {
    let grant = this.#fresh(this.#cachedKeys, keyHash);
    if (!grant) {
      grant = await this.#keys.findApiKey(keyHash);
      if (!grant?.active) {
        this.#cachedKeys.delete(keyHash);
        throw new InvalidApiCredentialsError();
      }
      this.#remember(this.#cachedKeys, keyHash, grant);
    }
    if (keyHasLapsed(grant, new Date(this.#now()))) throw new InvalidApiCredentialsError();
    return grant;
  }

  async #load(accountId: string): Promise<AccountConfig> {
    const config = await this.#accounts.loadAccount(accountId);
    if (!config) {
      this.#cachedAccounts.delete(accountId);
      throw new ClientNotFoundError();
    }
    this.#remember(this.#cachedAccounts, accountId, config);
    return config;
  }

  #view(accountId: string, config: AccountConfig, readNow: boolean): AccountView {
    let current: Promise<AccountConfig> | undefined = readNow ? Promise.resolve(config) : undefined;
    return {
      config,
      current: () => (current ??= this.#load(accountId)),
    };
  }

  #fresh<T>(cache: Map<string, Cached<T>>, key: string): T | undefined {
    const entry = cache.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.#now()) return entry.value;
    cache.delete(key);
    return undefined;
  }

  #remember<T>(cache: Map<string, Cached<T>>, key: string, value: T): void {
    cache.delete(key);
    cache.set(key, { value, expiresAt: this.#now() + this.#ttlMs });
    if (cache.size > this.#maxEntries) cache.delete(cache.keys().next().value!);
  }
}
