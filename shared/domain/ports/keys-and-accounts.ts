/**
 * What the request path and the admin need of API keys and accounts: their reads, their lifecycle's
 * writes, and the per-key bound on requests.
 */
import type { KeyChallenge } from '../challenge.ts';
import type { RetentionChange } from '../retention.ts';
import type { AccountConfig, AccountSettings, ApiKeyGrant, Campaign, DuplicateSetting, KeyEndpoint, Project } from '../lead.ts';

export interface ApiKeyReader {
  /** The grant of an API key, looked up by the SHA-256 hex digest of the key. */
  findApiKey(keyHash: string): Promise<ApiKeyGrant | undefined>;
}

/** A key as its administrators see it: everything stored about it except its hash. */
export interface StoredApiKey {
  readonly keyId: string;
  readonly accountId: string;
  /** False once revoked. */
  readonly active: boolean;
  readonly label: string | null;
  /** null: every lead endpoint. */
  readonly endpoints: readonly KeyEndpoint[] | null;
  /** Normalised origins; null: not a browser key. */
  readonly origins: readonly string[] | null;
  readonly expiresAt: string | null;
  /** When a rotated key stops working; null for a key never rotated. */
  readonly graceEndsAt: string | null;
  readonly createdAt: string;
  /** A browser key's challenge, its secret sealed; absent: none. */
  readonly captcha?: KeyChallenge;
  /** Limited to dry runs (CONTRACT.md section 19); absent: not. */
  readonly dryRunsOnly?: true;
}

/** A key found by its public id, with the hash the request path looks it up by. */
export interface KeyById {
  readonly keyHash: string;
  readonly key: StoredApiKey;
}

/** The key lifecycle's storage: keys findable by hash (the request path), by key id and by account. */
export interface ApiKeyRegistry extends ApiKeyReader {
  /** Stores a new key, findable by its key id and under its account, in one atomic write. */
  insertKey(keyHash: string, key: StoredApiKey): Promise<void>;
  /**
   * Writes a key idempotently (seed files): the same key written twice is stored once, keeping its
   * first `createdAt`. Throws KeyIdTakenError when another key has this key id.
   */
  putKey(keyHash: string, key: StoredApiKey): Promise<void>;
  findKeyById(keyId: string): Promise<KeyById | undefined>;
  /** Every key of the account that has a key id, oldest first. */
  listAccountKeys(accountId: string): Promise<StoredApiKey[]>;
  /** Marks a key inactive; false when no such key is stored. */
  revokeApiKey(keyHash: string): Promise<boolean>;
  /**
   * Stores the successor and ends the old key's grace at `graceEndsAt` unless an earlier end is set
   * (the earlier stays), in one atomic, conditional write; returns the grace end in force. Undefined,
   * and nothing written, when the old key was revoked meanwhile.
   */
  rotateKey(oldKeyHash: string, graceEndsAt: string, successorHash: string, successor: StoredApiKey): Promise<string | undefined>;
}

export interface AccountReader {
  /** The account with its active projects and campaigns; retired ones are left out. */
  loadAccount(accountId: string): Promise<AccountConfig | undefined>;
}

/**
 * Configuration writes, each one atomic. The store enforces the rules that depend on what is stored
 * (the account exists, the project is active, a campaign id belongs to one active campaign) in the
 * write itself, so a concurrent change cannot slip between a check and the write, and reports a
 * refusal as an outcome for the domain to name.
 */
export interface AccountConfigStore extends AccountReader {
  /** Creates the account, or replaces its settings; its projects are untouched. */
  putAccountSettings(accountId: string, settings: AccountSettings): Promise<void>;
  /** Changes the duplicate setting alone; false when there is no such account. */
  setDuplicateSetting(accountId: string, setting: DuplicateSetting): Promise<boolean>;
  /** Changes the retention members given, the others kept; false when there is no such account. */
  setRetention(accountId: string, change: RetentionChange): Promise<boolean>;
  /** Creates the project, or renames it and makes it active again (its campaigns stay as they are). */
  putProject(accountId: string, project: Project): Promise<'stored' | 'account_not_found'>;
  /** Marks the project and its active campaigns retired, in one write; a retired project stays retired. */
  retireProject(accountId: string, projectId: string): Promise<'retired' | 'account_not_found' | 'project_not_found'>;
  /** Creates or replaces the campaign under an active project; refused while it is an active campaign of another. */
  putCampaign(accountId: string, campaign: Campaign): Promise<'stored' | 'account_not_found' | 'project_not_found' | 'campaign_of_another_project'>;
  /** Marks a campaign of the project retired. */
  retireCampaign(accountId: string, projectId: string, campaignId: string): Promise<'retired' | 'account_not_found' | 'project_not_found' | 'campaign_not_found'>;
}

/**
 * The bound on the requests one scoped key sends in a calendar minute (UTC): a provider's webhook
 * (the call webhook's `calls` keys). Past it, the key's requests are refused until the next minute,
 * and nothing else is read or written for them.
 */
export interface KeyRequestBound {
  /** True when the key's request is within its minute's bound (and is counted); false past it. */
  admit(keyId: string, at: Date): Promise<boolean>;
}
