/**
 * The key lifecycle (CONTRACT.md section 7): create, list, revoke and rotate API keys, with the
 * options a key may carry (endpoints, browser origins, expiry). Plain typed input and output and typed
 * errors (errors.ts), so the admin CLI, the seed and an admin HTTP API are thin clients of the same code.
 * Keys are stored only as SHA-256 hashes; the plaintext leaves this module once, in `IssuedKey.key`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { InvalidKeyOptionError, KeyAccountNotFoundError, KeyNotFoundError, KeyRevokedError } from './errors.ts';
import { leadKeyEndpoints, type ApiKeyGrant, type KeyEndpoint } from './lead.ts';
import type { AccountReader, ApiKeyRegistry, StoredApiKey } from './ports/keys-and-accounts.ts';
import { checkedChallenge, type ChallengeProvider, type ChallengeRequest, type ChallengeSecretCipher } from './challenge.ts';

export const hashApiKey = (apiKey: string): string => createHash('sha256').update(apiKey, 'utf8').digest('hex');

export interface KeyAdminDependencies {
  readonly keys: ApiKeyRegistry;
  readonly accounts: AccountReader;
  readonly now?: () => Date;
  /** Seals a challenge's secret; creating a key with a challenge needs it. */
  readonly challengeSecrets?: Pick<ChallengeSecretCipher, 'seal'>;
  /** The key scopes of the sources that have one (KeyRules). */
  readonly keyScopes: readonly string[];
}

/** What a key's options are checked against besides its own text: the sources' key scopes, and whether a past expiry is allowed. */
export interface KeyRules {
  /**
   * The key scopes of the sources whose key is limited to them alone (the call webhook's `calls`): names
   * a key's endpoints may hold besides the four lead endpoints, each alone. The sources' descriptors
   * declare them; the caller, which may read the registry (shared/sources/registry.ts `sourceKeyScopes`)
   * where the domain may not, gives them.
   */
  readonly keyScopes: readonly string[];
  /** Seed files may hold an expired key on purpose. */
  readonly allowPastExpiry?: boolean;
}

/** The options a key may be created with; absent or null means "no limit". */
export interface KeyOptions {
  readonly label?: string | null;
  /** Endpoint names (`website`, `portala`, `portalb`, `social`, or a source's key scope alone: `calls`). */
  readonly endpoints?: readonly string[] | null;
  /** Browser origins, `scheme://host[:port]`; a key with origins is a browser key, website only. */
  readonly origins?: readonly string[] | null;
  /** ISO-8601 date or date-time, in the future. */
  readonly expiresAt?: string | null;
  /** Limited to dry runs (CONTRACT.md section 19): a secret key of the lead endpoints whose requests store nothing. */
  readonly dryRunsOnly?: boolean | null;
}

export interface CreateKeyInput extends KeyOptions {
  readonly accountId: string;
  /** A browser key's challenge: the provider and its secret in clear (sealed before it is stored). */
  readonly captcha?: ChallengeRequest | null;
}

/** A key as shown once, when it is created or rotated (the admin CLI's `--json`). */
export interface IssuedKey {
  readonly key: string;
  readonly key_id: string;
  readonly account_id: string;
  readonly label: string | null;
  /** null: every endpoint. */
  readonly endpoints: readonly KeyEndpoint[] | null;
  /** null: not a browser key. */
  readonly origins: readonly string[] | null;
  /** null: never. */
  readonly expires_at: string | null;
  readonly created_at: string;
  /** The challenge's provider; null: none. Never its secret. */
  readonly captcha: ChallengeProvider | null;
  /** The reCAPTCHA v3 action its tokens must have been made for; absent when the key names none. */
  readonly captcha_action?: string;
  /** Limited to dry runs (CONTRACT.md section 19); absent for a key that is not, so that no earlier answer changes. */
  readonly dry_runs_only?: true;
}

/** A key as `list-keys` shows it: never the key, never its hash. */
export interface KeySummary {
  readonly key_id: string;
  readonly label: string | null;
  readonly endpoints: readonly KeyEndpoint[] | null;
  readonly origins: readonly string[] | null;
  /** False once revoked, or once a rotation's grace has ended. */
  readonly active: boolean;
  readonly created_at: string;
  /** The expiry, or the end of a rotation's grace, whichever comes first; null: never. */
  readonly expires_at: string | null;
  /** The challenge's provider; null: none. Never its secret. */
  readonly captcha: ChallengeProvider | null;
  /** The reCAPTCHA v3 action its tokens must have been made for; absent when the key names none. */
  readonly captcha_action?: string;
  /** Limited to dry runs (CONTRACT.md section 19); absent for a key that is not, so that no earlier answer changes. */
  readonly dry_runs_only?: true;
}

export interface RotateKeyInput {
  readonly keyId: string;
  /** Seconds the old key keeps working; a whole number, default 86,400; 0 ends it at once. */
  readonly graceSeconds?: number;
  /** The new key's expiry; by default it has none. */
  readonly expiresAt?: string | null;
}

export interface RotatedKey extends IssuedKey {
  /** The key it replaces, and when that one stops working. */
  readonly replaces: { readonly key_id: string; readonly expires_at: string };
}

/** Which key to revoke: the key itself, or its public id. */
export type RevokeKeyTarget = { readonly key: string } | { readonly keyId: string };

export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;
/** 30 days: a replaced key must not stay usable for longer (CONTRACT.md section 11). */
export const MAX_ROTATION_GRACE_SECONDS = 2_592_000;
const LABEL_MAX = 200;

/** Creates a key for an existing account; the plaintext is in the answer and nowhere else. */
export const createKey = async (deps: KeyAdminDependencies, input: CreateKeyInput): Promise<IssuedKey> => {
  const now = clock(deps);
  const options = keyOptions(input, now, { keyScopes: deps.keyScopes });
  const challenge = input.captcha == null ? undefined : checkedChallenge(input.captcha, options.origins !== null);
  if (!(await deps.accounts.loadAccount(input.accountId))) throw new KeyAccountNotFoundError(input.accountId);
  const captcha = challenge && {
    provider: challenge.provider,
    sealedSecret: await sealer(deps).seal(input.accountId, challenge.secret),
    ...(challenge.action !== undefined && { action: challenge.action }),
  };
  const key = newApiKey();
  const stored: StoredApiKey = {
    keyId: newKeyId(),
    accountId: input.accountId,
    active: true,
    graceEndsAt: null,
    createdAt: now.toISOString(),
    ...options,
    ...(captcha && { captcha }),
  };
  await deps.keys.insertKey(hashApiKey(key), stored);
  return issued(key, stored);
};

/** The keys of an existing account (those with a key id), oldest first. */
export const listKeys = async (deps: KeyAdminDependencies, accountId: string): Promise<KeySummary[]> => {
  if (!(await deps.accounts.loadAccount(accountId))) throw new KeyAccountNotFoundError(accountId);
  const now = clock(deps).toISOString();
  return (await deps.keys.listAccountKeys(accountId)).map((key) => summaryOf(key, now));
};

/**
 * Makes a key inactive: it then answers 401 Invalid API credentials (within the functions' cache TTL).
 * Returns its key id, or null for a key stored before key ids existed.
 */
export const revokeKey = async (deps: KeyAdminDependencies, target: RevokeKeyTarget): Promise<{ key_id: string | null }> => {
  if ('keyId' in target) {
    const found = await deps.keys.findKeyById(target.keyId);
    if (!found || !(await deps.keys.revokeApiKey(found.keyHash))) throw new KeyNotFoundError(target.keyId);
    return { key_id: target.keyId };
  }
  const keyHash = hashApiKey(target.key);
  const grant = await deps.keys.findApiKey(keyHash);
  if (!grant || !(await deps.keys.revokeApiKey(keyHash))) throw new KeyNotFoundError();
  return { key_id: grant.keyId ?? null };
};

/**
 * A new key with the old one's account, label, endpoints and origins; the old key keeps working for
 * the grace period and then answers 401. An expired key can be rotated (that is how it is renewed); a
 * revoked one, or one whose grace has ended, cannot. Rotating a key already in its grace never extends it.
 */
export const rotateKey = async (deps: KeyAdminDependencies, input: RotateKeyInput): Promise<RotatedKey> => {
  const now = clock(deps);
  const graceSeconds = input.graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS;
  if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0) {
    throw new InvalidKeyOptionError('grace', `the grace period must be a whole number of seconds, 0 or more, not ${JSON.stringify(graceSeconds)}`);
  }
  if (graceSeconds > MAX_ROTATION_GRACE_SECONDS) {
    throw new InvalidKeyOptionError('grace', `the grace period is at most ${MAX_ROTATION_GRACE_SECONDS} seconds (30 days), not ${graceSeconds}`);
  }
  const expiresAt = input.expiresAt == null ? null : expiry(input.expiresAt, now);
  const found = await deps.keys.findKeyById(input.keyId);
  if (!found) throw new KeyNotFoundError(input.keyId);
  const old = found.key;
  if (!old.active || (old.graceEndsAt !== null && old.graceEndsAt <= now.toISOString())) throw new KeyRevokedError(old.keyId);

  const graceEndsAt = new Date(now.getTime() + graceSeconds * 1000).toISOString();
  const key = newApiKey();
  const successor: StoredApiKey = {
    keyId: newKeyId(),
    accountId: old.accountId,
    active: true,
    label: old.label,
    endpoints: old.endpoints,
    origins: old.origins,
    expiresAt,
    graceEndsAt: null,
    createdAt: now.toISOString(),
    ...(old.dryRunsOnly && { dryRunsOnly: true as const }),
    // The challenge and its sealed secret (sealed for the account, which the successor shares).
    ...(old.captcha && { captcha: old.captcha }),
  };
  // The store keeps the earlier of this end and one already set, in the write itself.
  const inForce = await deps.keys.rotateKey(found.keyHash, graceEndsAt, hashApiKey(key), successor);
  if (inForce === undefined) throw new KeyRevokedError(old.keyId);
  return { ...issued(key, successor), replaces: { key_id: old.keyId, expires_at: inForce } };
};

/**
 * Checks and normalises a key's options: endpoints known and without repeats, origins normalised,
 * origins only with the website endpoint (and meaning it when no endpoints are given), a label of
 * reasonable length, an expiry in the future (or, for seed files, `allowPastExpiry`), a source's key
 * scope alone.
 */
export const keyOptions = (
  options: KeyOptions,
  now: Date,
  { keyScopes, allowPastExpiry = false }: KeyRules,
): Pick<StoredApiKey, 'label' | 'endpoints' | 'origins' | 'expiresAt' | 'dryRunsOnly'> => {
  const label = options.label == null ? null : checkedLabel(options.label);
  let endpoints = options.endpoints == null ? null : checkedEndpoints(options.endpoints, keyScopes);
  const origins = options.origins == null ? null : checkedOrigins(options.origins);
  if (origins) {
    const other = endpoints?.find((endpoint) => endpoint !== 'website');
    if (other) {
      throw new InvalidKeyOptionError('endpoints', `a key with origins is a browser key and may only use the website endpoint, not ${other}`);
    }
    endpoints ??= ['website'];
  }
  const expiresAt = options.expiresAt == null ? null : expiry(options.expiresAt, now, allowPastExpiry);
  if (options.dryRunsOnly === true) {
    // Dry runs are the lead endpoints' (a browser key may make none; a source's own key has none to make).
    if (origins) throw new InvalidKeyOptionError('dry-runs-only', 'a browser key may not make dry runs: a key limited to dry runs has no origins');
    const scope = endpoints?.find((endpoint) => keyScopes.includes(endpoint));
    if (scope !== undefined) throw new InvalidKeyOptionError('dry-runs-only', `a ${scope} key makes no dry runs: a key limited to dry runs is a key of the lead endpoints`);
  }
  return { label, endpoints, origins, expiresAt, ...(options.dryRunsOnly === true && { dryRunsOnly: true as const }) };
};

/**
 * An origin as browsers send it, lower-cased with a default port dropped (`https://Shop.example:443`
 * is `https://shop.example`); undefined for anything that is not `scheme://host[:port]` (a path, even
 * `/`, a query, a fragment or credentials make it not an origin).
 */
export const normaliseOrigin = (text: string): string | undefined => {
  if (!/^https?:\/\/[^/?#@\s\\]+$/i.test(text)) return undefined;
  try {
    const url = new URL(text);
    return url.hostname === '' ? undefined : url.origin;
  } catch {
    return undefined;
  }
};

/**
 * Whether a key may post to an endpoint: one of its endpoints, or any lead endpoint for a key without
 * endpoints. A source with a key scope of its own (`scoped`: the call webhook's `calls`) takes only a
 * key limited to that scope alone (CONTRACT.md section 13), so a full key never travels in a provider's URL.
 */
export const keyAllowsEndpoint = (grant: Pick<ApiKeyGrant, 'endpoints'>, endpoint: KeyEndpoint, { scoped = false }: { scoped?: boolean } = {}): boolean =>
  scoped ? grant.endpoints?.length === 1 && grant.endpoints[0] === endpoint : grant.endpoints === undefined || grant.endpoints.includes(endpoint);

/** Whether a key stopped working at `now`: expired, or at the end of a rotation's grace. */
export const keyHasLapsed = (grant: Pick<ApiKeyGrant, 'expiresAt' | 'graceEndsAt'>, now: Date): boolean => {
  const at = now.toISOString();
  return (grant.expiresAt !== undefined && grant.expiresAt <= at) || (grant.graceEndsAt !== undefined && grant.graceEndsAt <= at);
};

/** A key id derived from a key's hash, for seed entries that name none: the same seed gives the same id. */
export const derivedKeyId = (keyHash: string): string => `key_${createHash('sha256').update(`key-id\n${keyHash}`).digest('hex').slice(0, 20)}`;

export const isKeyId = (text: string): boolean => /^key_[A-Za-z0-9]{1,64}$/.test(text);

const newApiKey = () => `lk_${randomBytes(24).toString('base64url')}`;
const newKeyId = () => `key_${randomBytes(10).toString('hex')}`;
const clock = (deps: KeyAdminDependencies) => (deps.now ?? (() => new Date()))();
const sealer = (deps: KeyAdminDependencies) => {
  if (!deps.challengeSecrets) throw new Error('no cipher for challenge secrets was given to the key lifecycle');
  return deps.challengeSecrets;
};

const issued = (key: string, stored: StoredApiKey): IssuedKey => ({
  key,
  key_id: stored.keyId,
  account_id: stored.accountId,
  label: stored.label,
  endpoints: stored.endpoints,
  origins: stored.origins,
  expires_at: stored.expiresAt,
  created_at: stored.createdAt,
  captcha: stored.captcha?.provider ?? null,
  ...(stored.captcha?.action !== undefined && { captcha_action: stored.captcha.action }),
  ...(stored.dryRunsOnly && { dry_runs_only: true as const }),
});

const summaryOf = (key: StoredApiKey, now: string): KeySummary => {
  const ends = [key.expiresAt, key.graceEndsAt].filter((at): at is string => at !== null).sort();
  return {
    key_id: key.keyId,
    label: key.label,
    endpoints: key.endpoints,
    origins: key.origins,
    active: key.active && !(key.graceEndsAt !== null && key.graceEndsAt <= now),
    created_at: key.createdAt,
    expires_at: ends[0] ?? null,
    captcha: key.captcha?.provider ?? null,
    ...(key.captcha?.action !== undefined && { captcha_action: key.captcha.action }),
    ...(key.dryRunsOnly && { dry_runs_only: true as const }),
  };
};

const checkedLabel = (label: string): string | null => {
  const trimmed = label.trim();
  if (trimmed === '') return null;
  if (trimmed.length > LABEL_MAX) throw new InvalidKeyOptionError('label', `the label is longer than ${LABEL_MAX} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw new InvalidKeyOptionError('label', 'the label must not contain control characters');
  return trimmed;
};

const checkedEndpoints = (names: readonly string[], keyScopes: readonly string[]): KeyEndpoint[] => {
  const known: readonly string[] = [...leadKeyEndpoints, ...keyScopes];
  const endpoints: KeyEndpoint[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (!known.includes(name)) {
      throw new InvalidKeyOptionError('endpoints', `unknown endpoint ${JSON.stringify(raw)}: the endpoints are ${known.join(', ')}`);
    }
    if (!endpoints.includes(name)) endpoints.push(name);
  }
  if (endpoints.length === 0) throw new InvalidKeyOptionError('endpoints', `name at least one endpoint of ${known.join(', ')}`);
  // A scoped key travels where a full key must not (the call providers' URLs, CONTRACT.md section 13): it opens nothing else.
  const scope = endpoints.find((endpoint) => keyScopes.includes(endpoint));
  if (scope !== undefined && endpoints.length > 1) {
    throw new InvalidKeyOptionError('endpoints', `a ${scope} key may only use the ${scope} endpoint, not ${endpoints.find((e) => e !== scope)}`);
  }
  return endpoints;
};

const checkedOrigins = (texts: readonly string[]): string[] => {
  const origins: string[] = [];
  for (const raw of texts) {
    const origin = normaliseOrigin(raw.trim());
    if (!origin) throw new InvalidKeyOptionError('origins', `${JSON.stringify(raw)} is not an origin: use scheme://host[:port], with no path, not even "/"`);
    if (!origins.includes(origin)) origins.push(origin);
  }
  if (origins.length === 0) throw new InvalidKeyOptionError('origins', 'name at least one origin, scheme://host[:port]');
  return origins;
};

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** An ISO-8601 date or date-time as UTC ISO text; a day that its month lacks is refused. */
export const isoInstant = (text: string): string | undefined => {
  const value = text.trim();
  const match = ISO_8601.exec(value);
  if (!match) return undefined;
  const time = new Date(value);
  // V8 reads 2025-02-30 as March 2: the day must exist in its month.
  const day = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (Number.isNaN(time.getTime()) || day.getUTCDate() !== Number(match[3]) || day.getUTCMonth() !== Number(match[2]) - 1) return undefined;
  return time.toISOString();
};

const expiry = (text: string, now: Date, allowPast = false): string => {
  const at = isoInstant(text);
  if (!at) throw new InvalidKeyOptionError('expires', `the expiry must be an ISO-8601 date or date-time such as 2026-12-31T23:59:59Z, not ${JSON.stringify(text)}`);
  if (!allowPast && at <= now.toISOString()) throw new InvalidKeyOptionError('expires', `the expiry ${at} is in the past`);
  return at;
};
