import { describe, expect, it } from '@jest/globals';
import { AccountDirectory, hashApiKey } from '../../shared/domain/account-directory.ts';
import { ClientNotFoundError, InvalidApiCredentialsError } from '../../shared/domain/errors.ts';
import type { AccountConfig, ApiKeyGrant } from '../../shared/domain/lead.ts';
import type { AccountReader, ApiKeyReader } from '../../shared/domain/ports/keys-and-accounts.ts';

const account = (id: string, projects: string[] = []): AccountConfig => ({
  id,
  name: id,
  duplicateSetting: 'ignore',
  projects: new Map(projects.map((p) => [p, { id: p, name: p }])),
  campaigns: new Map(),
  websiteSubSources: new Set(),
  socialSubSources: new Set(),
});

/** An in-memory reader that counts its reads. */
const memoryReader = () => {
  const keys = new Map<string, ApiKeyGrant>();
  const accounts = new Map<string, AccountConfig>();
  const reads = { keys: 0, accounts: 0 };
  const reader: ApiKeyReader & AccountReader = {
    findApiKey: async (hash) => (reads.keys++, keys.get(hash)),
    loadAccount: async (id) => (reads.accounts++, accounts.get(id)),
  };
  return { reader, keys, accounts, reads };
};

describe('finding the account of an API key', () => {
  it('looks keys up by their SHA-256 hash', async () => {
    const store = memoryReader();
    store.keys.set(hashApiKey('secret'), { accountId: 'a', active: true });
    store.accounts.set('a', account('a'));
    const view = await new AccountDirectory(store.reader, store.reader, { ttlMs: 1000 }).authenticate('secret');
    expect(view.config.id).toBe('a');
    expect(hashApiKey('secret')).toBe('2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b');
  });

  it('refuses unknown and inactive keys, and a key whose account does not exist', async () => {
    const store = memoryReader();
    store.keys.set(hashApiKey('inactive'), { accountId: 'a', active: false });
    store.keys.set(hashApiKey('orphan'), { accountId: 'gone', active: true });
    store.accounts.set('a', account('a'));
    const directory = new AccountDirectory(store.reader, store.reader, { ttlMs: 1000 });
    await expect(directory.authenticate('unknown')).rejects.toBeInstanceOf(InvalidApiCredentialsError);
    await expect(directory.authenticate('inactive')).rejects.toBeInstanceOf(InvalidApiCredentialsError);
    await expect(directory.authenticate('orphan')).rejects.toBeInstanceOf(ClientNotFoundError);
  });

  it('serves a warm request from the cache within the TTL, and re-reads after it', async () => {
    let now = 0;
    const store = memoryReader();
    store.keys.set(hashApiKey('k'), { accountId: 'a', active: true });
    store.accounts.set('a', account('a'));
    const directory = new AccountDirectory(store.reader, store.reader, { ttlMs: 1000, now: () => now });
    await directory.authenticate('k');
    await directory.authenticate('k');
    expect(store.reads).toEqual({ keys: 1, accounts: 1 });
    now = 1001;
    await directory.authenticate('k');
    expect(store.reads).toEqual({ keys: 2, accounts: 2 });
  });

  it('never caches a refusal: a key activated a moment ago works at once', async () => {
    const store = memoryReader();
    store.accounts.set('a', account('a'));
    const directory = new AccountDirectory(store.reader, store.reader, { ttlMs: 60_000 });
    await expect(directory.authenticate('k')).rejects.toBeInstanceOf(InvalidApiCredentialsError);
    store.keys.set(hashApiKey('k'), { accountId: 'a', active: true });
    await expect(directory.authenticate('k')).resolves.toMatchObject({ config: { id: 'a' } });
  });

  it('keeps honouring a revoked key until the TTL passes (the documented trade-off)', async () => {
    let now = 0;
    const store = memoryReader();
    store.keys.set(hashApiKey('k'), { accountId: 'a', active: true });
    store.accounts.set('a', account('a'));
    const directory = new AccountDirectory(store.reader, store.reader, { ttlMs: 1000, now: () => now });
    await directory.authenticate('k');
    store.keys.set(hashApiKey('k'), { accountId: 'a', active: false });
    await expect(directory.authenticate('k')).resolves.toBeDefined();
    now = 1001;
    await expect(directory.authenticate('k')).rejects.toBeInstanceOf(InvalidApiCredentialsError);
  });

  it('re-reads a cached configuration once on request, and not when it was read in this request', async () => {
    const store = memoryReader();
    store.keys.set(hashApiKey('k'), { accountId: 'a', active: true });
    store.accounts.set('a', account('a'));
    const directory = new AccountDirectory(store.reader, store.reader, { ttlMs: 60_000 });
    const cold = await directory.authenticate('k');
    expect(await cold.current()).toBe(cold.config);
    expect(store.reads.accounts).toBe(1);

    store.accounts.set('a', account('a', ['NEW']));
    const warm = await directory.authenticate('k');
    expect(warm.config.projects.has('NEW')).toBe(false);
    const current = await warm.current();
    await warm.current();
    expect(current.projects.has('NEW')).toBe(true);
    expect(store.reads.accounts).toBe(2);
  });

  it('keeps at most maxEntries keys and accounts per container', async () => {
    const store = memoryReader();
    for (const id of ['a', 'b', 'c']) {
      store.keys.set(hashApiKey(id), { accountId: id, active: true });
      store.accounts.set(id, account(id));
    }
    const directory = new AccountDirectory(store.reader, store.reader, { ttlMs: 60_000, maxEntries: 2 });
    for (const id of ['a', 'b', 'c', 'a']) await directory.authenticate(id);
    expect(store.reads.keys).toBe(4);
  });
});

describe('keys with an end', () => {
  it('stops a cached key at its expiry, not a TTL later', async () => {
    const store = memoryReader();
    let now = Date.parse('2030-01-01T00:00:00Z');
    store.keys.set(hashApiKey('k'), { accountId: 'a', active: true, expiresAt: '2030-01-01T00:00:10.000Z' });
    store.accounts.set('a', account('a'));
    const directory = new AccountDirectory(store.reader, store.reader, { ttlMs: 60_000, now: () => now });
    await expect(directory.authenticate('k')).resolves.toMatchObject({ key: { accountId: 'a' } });
    now += 10_000;
    await expect(directory.authenticate('k')).rejects.toBeInstanceOf(InvalidApiCredentialsError);
    expect(store.reads.keys).toBe(1);
  });

  it("stops a rotated key at the end of its grace, and checks that before the key's account", async () => {
    const store = memoryReader();
    const now = Date.parse('2030-01-01T00:00:00Z');
    store.keys.set(hashApiKey('old'), { accountId: 'gone', active: true, graceEndsAt: '2030-01-01T00:00:00.000Z' });
    const directory = new AccountDirectory(store.reader, store.reader, { ttlMs: 60_000, now: () => now });
    await expect(directory.authenticate('old')).rejects.toBeInstanceOf(InvalidApiCredentialsError);
    expect(store.reads.accounts).toBe(0);
  });
});
