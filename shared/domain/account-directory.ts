import { createHash } from 'node:crypto';
import { ClientNotFoundError, InvalidApiCredentialsError } from './errors.ts';
import type { AccountConfig } from './lead.ts';
import type { AccountReader, ApiKeyReader } from './ports.ts';

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

export const hashApiKey = (apiKey: string): string => createHash('sha256').update(apiKey, 'utf8').digest('hex');

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
  readonly #cachedKeys = new Map<string, Cached<string>>();
  readonly #cachedAccounts = new Map<string, Cached<AccountConfig>>();

  constructor(keys: ApiKeyReader, accounts: AccountReader, options: AccountDirectoryOptions) {
    this.#keys = keys;
    this.#accounts = accounts;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /** The account of the key; throws InvalidApiCredentials or ClientNotFound as the contract says. */
  async authenticate(apiKey: string): Promise<AccountView> {
    return this.account(await this.#accountIdOf(hashApiKey(apiKey)));
  }

  /** An account by id, through the same cache (Meta leads name their account by page, not by key). */
  async account(accountId: string): Promise<AccountView> {
    const cached = this.#fresh(this.#cachedAccounts, accountId);
    if (cached) return this.#view(accountId, cached, false);
    return this.#view(accountId, await this.#load(accountId), true);
  }

  async #accountIdOf(keyHash: string): Promise<string> {
    const cached = this.#fresh(this.#cachedKeys, keyHash);
    if (cached) return cached;
    const grant = await this.#keys.findApiKey(keyHash);
    if (!grant?.active) {
      this.#cachedKeys.delete(keyHash);
      throw new InvalidApiCredentialsError();
    }
    this.#remember(this.#cachedKeys, keyHash, grant.accountId);
    return grant.accountId;
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
