/**
 * What the domain needs from storage. The DynamoDB repository implements these; the domain never
 * sees a table, a key or an attribute value.
 */
import type { KeyChallenge } from './challenge.ts';
import type {
  AccountConfig,
  AccountSettings,
  ApiKeyGrant,
  Campaign,
  DuplicateSetting,
  LeadRecord,
  KeyEndpoint,
  PersonHandle,
  LegacyQuarantinedSubmission,
  PersonIdentifiers,
  Project,
  QuarantinedSubmission,
} from './lead.ts';
import type { ConnectionShape } from '../sources/connection-kind.ts';
import type { DeclaredConnectionKind } from '../sources/registry.ts';

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
 * A sender's retry-safety token: the first submission under a key stores the lead and the key in the
 * same write; a later one with the same key stores nothing.
 */
export interface IdempotencyClaim {
  /** The Idempotency-Key header as sent, scoped to the account by the store. */
  readonly key: string;
  /** Digest of the endpoint and body, to tell a retry from a different lead under a reused key. */
  readonly requestHash: string;
  /** How long the key holds; 24 hours when not given. Meta's leadgen ids need longer (CONTRACT.md section 8). */
  readonly ttlSeconds?: number;
  /**
   * A release of the quarantine record of this id (CONTRACT.md section 14): the key's record may hold
   * that record's own answer (a quarantined request's 200), which the stored lead then replaces.
   */
  readonly quarantineId?: string;
}

/** What a write under an idempotency key found instead of storing: the key was used already. */
export type IdempotentReplay =
  | { readonly kind: 'replay'; readonly lead: LeadRecord }
  | { readonly kind: 'key_reused' }
  /** The key's lead was erased at its person's request: its record is a tombstone without the lead. */
  | { readonly kind: 'erased' };

/** A release marker written with the lead was there already: the quarantine record was released. */
export interface MarkerTaken {
  readonly kind: 'marker_taken';
}

/**
 * An item a delivery's one write takes beside its platform id's claim (a chat's conversation: CONTRACT.md
 * section 15; the intake's DeliveryClaim, shared/intake/types.ts). One item per (account, party, `key`),
 * free when none is held, when the one held ends at `at` or before, or when this claim carries a
 * `value` and the held one another or none (a new ad's referral). Taken by another write first: nothing
 * of this write is stored (ClaimHeldError). The party is kept only as a keyed hash (PersonKeyring): erasing
 * the person forgets their claims (CONTRACT.md section 12).
 */
export interface WriteClaim {
  /** What the claim is of within the party's claims: no personal data (a WhatsApp number's id). */
  readonly key: string;
  /** Who the claim is with: a mobile (an erasure by it forgets the claim), or a handle no erasure names. */
  readonly party: PersonHandle;
  /** The delivery's time on the platform's clock (ISO 8601): kept on its retries. */
  readonly at: string;
  /** Until when the claim holds once taken (ISO 8601). */
  readonly until: string;
  readonly value?: string;
}

/** The read of a claim before a write (the intake's `decidedWhileClaimHeld`): one consistent GetItem. */
export interface WriteClaimReader {
  /** Whether the claim is held against this one: taken, not ended at its `at`, and not of another value than its own. */
  isHeld(accountId: string, claim: WriteClaim): Promise<boolean>;
}

export type OriginalLeadOutcome =
  | { readonly kind: 'stored' }
  /** The project already has a lead with this mobile number; nothing was stored. */
  | { readonly kind: 'duplicate'; readonly originalLeadId: string }
  | IdempotentReplay
  | MarkerTaken;

/**
 * A repeat's write, as the store found it: stored, with its original's claim confirmed in the same
 * write (`originalChecked`) or not (a write that could not carry the check, or whose check the claim
 * failed: then written again without it). What the repeat then becomes is the domain's to decide
 * (shared/domain/duplicates.ts).
 */
export type RepeatLeadOutcome = { readonly kind: 'stored'; readonly originalChecked: boolean } | IdempotentReplay | MarkerTaken;

/**
 * The kinds of connection a source's deliveries name, each connected by an account to one of its
 * projects and campaigns: a Google Ads lead form (CONTRACT.md section 10), a project's call number
 * (section 13). Each is declared in its source's folder (shared/sources/connection-kind.ts), and the
 * union is the declared sources' (the registry's), never written by hand.
 */
export type ConnectionKind = DeclaredConnectionKind;

/** A connection as stored. A kind whose deliveries carry a key of their own (Google's forms) keeps only its hash. */
export interface Connection {
  readonly kind: ConnectionKind;
  /** What deliveries name it by: Google's form id (its exact decimal digits), a call number's last 10 digits. */
  readonly id: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly campaignId: string;
  /** SHA-256 hex of the connection's own key, for kinds whose deliveries carry one. */
  readonly keyHash?: string;
  readonly connectedAt: string;
}

/**
 * The connection a delivery was authenticated against, as the container trusted it (its cache may be
 * older than a rotation, a removal or a move). A write given a guard stores nothing, and throws
 * ConnectionChangedError, unless the connection is still the account's, still to that project and
 * campaign (and with that key hash, when it has one), checked in the write itself (CONTRACT.md section
 * 10: a rotated or removed key answers 401 at once; section 14: a removed or moved connection takes
 * effect at once, whatever the cache).
 */
export interface ConnectionGuard {
  readonly kind: ConnectionKind;
  /** Its kind's key shape (its declaration's), so the write finds the item without a table of every kind. */
  readonly shape: ConnectionShape;
  readonly id: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly campaignId: string;
  readonly keyHash?: string;
}

/** The webhook's read of a connection: one item. */
export interface ConnectionReader {
  /**
   * The connection of that id; undefined when none, or removed. A kind each account connects on its
   * own (call numbers) is found under the account, which is then required.
   */
  findConnection(id: string, accountId?: string): Promise<Connection | undefined>;
}

/** One kind's connections as their lifecycle (CLI, seed, admin API) manages them; each write atomic. */
export interface ConnectionRegistry extends ConnectionReader {
  /** Connects anew (over a removal tombstone too); false, and nothing written, when it is connected already. */
  insertConnection(connection: Connection): Promise<boolean>;
  /**
   * Moves a connection, as the caller just read it, to another project and campaign; false, and nothing
   * written, when it is no longer connected to that account (the write is conditioned on it).
   */
  reconnect(connection: Omit<Connection, 'keyHash'>, projectId: string, campaignId: string): Promise<boolean>;
  /** Replaces the connection's key hash; undefined when none (of that account, when given) is connected. */
  replaceKey(id: string, keyHash: string, accountId?: string): Promise<Connection | undefined>;
  /** Disconnects, leaving a removal tombstone a seed never brings back; false when none (of that account, when given) is connected. */
  removeConnection(id: string, accountId?: string): Promise<boolean>;
  /** The account's connections of this kind, by id (never a key hash). */
  listConnections(accountId: string): Promise<Omit<Connection, 'keyHash'>[]>;
  /**
   * A seed file's connection: added when never connected; moved to the seed's project and campaign (its
   * key, rotated or not, kept) when connected to the account; left alone when removed; refused,
   * nothing written, when another account has it (CONTRACT.md section 14).
   */
  seed(connection: Connection): Promise<SeedOutcome>;
}

export interface LeadStore {
  /**
   * Stores the lead as the original of its (account, project, mobile) in one atomic write, or
   * stores nothing and names the original that exists already. `marker`: a claim written in the same
   * write without a copy of the lead (a quarantine's release marker, when the key's record holds the copy).
   */
  insertOriginal(
    accountId: string,
    lead: LeadRecord,
    idempotency?: IdempotencyClaim,
    guard?: WriteGuard,
    marker?: IdempotencyClaim,
    /** Items the write takes besides (WriteClaim): one held by another write, nothing stored (ClaimHeldError). */
    claims?: readonly WriteClaim[],
  ): Promise<OriginalLeadOutcome>;
  /**
   * Stores a repeat as given. `originalLeadId`: the lead the mobile's claim named when the original's
   * write was refused, checked to hold the claim still in the same write when the write is a
   * transaction anyway (under a claim or a guard); the outcome says whether it was confirmed so.
   */
  insertRepeat(
    accountId: string,
    lead: LeadRecord,
    idempotency?: IdempotencyClaim,
    guard?: WriteGuard,
    marker?: IdempotencyClaim,
    originalLeadId?: string,
    claims?: readonly WriteClaim[],
  ): Promise<RepeatLeadOutcome>;
  /**
   * Rewrites a stored repeat as the domain settled it (its `is_repeated` and `parent_lead_id`, and the
   * copy of it in its idempotency record), in one write with the mobile's claim as it was read:
   * `claimHolder` undefined, the vacant claim taken for the lead; else checked to be that lead's still.
   * False, nothing written, when the claim is no longer so (or the lead is gone).
   */
  rewriteRepeat(accountId: string, lead: LeadRecord, claimHolder: string | undefined, idempotency?: IdempotencyClaim): Promise<boolean>;
  /**
   * The answer already given under an idempotency key (CONTRACT.md section 14), read before a check
   * that could answer differently (a challenge): undefined when the key is unused or expired.
   */
  previousAnswer(accountId: string, claim: IdempotencyClaim): Promise<IdempotentReplay | undefined>;
  /**
   * The id of the lead holding a mobile number's claim in a project (one consistent read): a dry
   * run's duplicate check, and a repeat's settling against its original.
   */
  findOriginal(accountId: string, projectId: string, mobile: string): Promise<string | undefined>;
}

/**
 * A request an account's lead sender made that was refused with a 422 (or caught by the honeypot), kept
 * for the account owner. `endpoint` is open: other intake paths (a Meta webhook) record theirs too.
 */
export interface Rejection {
  readonly at: string;
  readonly requestId: string;
  readonly endpoint: string;
  readonly reason: string;
  readonly message: string;
  /** Last four digits only. */
  readonly mobile?: string;
  /** The fields that failed, with the field messages, or the offending ids and sub source. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Field problems left out of `fields` to keep the record within its bound (shared/domain/rejections.ts). */
  readonly omittedFields?: number;
  /** The key id of the API key the request came with (a browser key's records are bounded per key and minute). */
  readonly key_id?: string;
  /** The key is a browser key (public): its records are bounded per key and minute. Not stored. */
  readonly browserKey?: boolean;
  /**
   * A quarantined submission (reasons of QUARANTINE_REASONS): the lead as validated, in full, under
   * the request's field names, so a person can release it into a lead (CONTRACT.md section 11).
   */
  readonly submission?: QuarantinedSubmission;
  /**
   * The `Idempotency-Key` of the quarantined request, when it had one, and the digest of what it was
   * sent with: its release and a later request with that key are one lead (CONTRACT.md section 14).
   */
  readonly idempotency_key?: string;
  readonly idempotency_request_hash?: string;
  /**
   * Not stored as part of the record: the lead a quarantined request was answered with (a 200 as for
   * a new lead). Under an idempotency key, the key's record keeps it, written with the record, so a
   * repeat of the request gets that answer again and stores nothing.
   */
  readonly answered?: LeadRecord;
  /**
   * Who the refused submission names (CONTRACT.md section 12), so access and erasure find the record.
   * Never stored as written: the store keeps keyed hashes of it in lookup items (shared/domain/person-data.ts).
   */
  readonly person?: PersonIdentifiers;
  /**
   * A platform's delivery (Meta's, Google's, a call): its own ids, under the attribute names its
   * descriptor declares (`platformId`: `google_lead_id`, `call_id` with its `provider`). Kept beside
   * the record's own attributes, as they always were: a stored record and the admin API's JSON carry
   * them at its top level.
   */
  readonly platformIds?: PlatformIds;
}

/**
 * The platform's ids of a delivery by attribute name: its lead id (`meta_leadgen_id`, `google_lead_id`,
 * `call_id`) and what qualifies it (a call's `provider`), as its source's descriptor names them.
 */
export type PlatformIds = Readonly<Record<string, string>>;

/**
 * The bound on the requests one scoped key sends in a calendar minute (UTC): a provider's webhook
 * (the call webhook's `calls` keys). Past it, the key's requests are refused until the next minute,
 * and nothing else is read or written for them.
 */
export interface KeyRequestBound {
  /** True when the key's request is within its minute's bound (and is counted); false past it. */
  admit(keyId: string, at: Date): Promise<boolean>;
}

export interface RejectionLog {
  /**
   * Keeps the rejection for its account, with an id and `created_at` of its own. A browser key's
   * records past the bound of a minute are counted instead (one `suppressed` counter per key and
   * minute; `captcha_unavailable` records have a bound of their own). A quarantine `answered` under
   * an idempotency key that was used already stores nothing and returns what the key answered.
   */
  record(accountId: string, rejection: Rejection, guard?: ConnectionGuard): Promise<IdempotentReplay | undefined>;
  /**
   * Keeps the rejection once per claim (a platform's delivery id, platform-leads.ts): the record and
   * the claim are one write, so of repeated or simultaneous deliveries of one id at most one record is
   * kept, and none when the claim was taken before (by a lead or a record): `already_decided`. Given
   * a guard, nothing is kept when the delivery's connection changed since it was read (ConnectionChangedError);
   * given claims (WriteClaim), nothing is kept when another write holds one (ClaimHeldError).
   */
  recordOnce(accountId: string, rejection: Rejection, claim: IdempotencyClaim, guard?: ConnectionGuard, claims?: readonly WriteClaim[]): Promise<'recorded' | 'already_decided'>;
}

/**
 * A rejection record as it is read back: the record's own attributes, and the platform's ids of a
 * delivery's record at its top level, as stored (their names are its source's descriptor's, so they
 * are read by name: `record.call_id`).
 */
export interface StoredRejection extends Omit<Rejection, 'platformIds' | 'submission'> {
  readonly [platformIdAttribute: string]: unknown;
  /** A quarantined submission as stored: today's shape, or one of before until it expires. */
  readonly submission?: QuarantinedSubmission | LegacyQuarantinedSubmission;
  /** Unique in its account; a ULID whose time is `created_at`. */
  readonly id: string;
  readonly created_at: string;
  /** A released quarantine record: when, and the lead it became. */
  readonly released_at?: string;
  readonly lead_id?: string;
  /** A `suppressed` counter: the records not stored for this key in this minute, and per reason. */
  readonly count?: number;
  readonly reasons?: Readonly<Record<string, number>>;
}

export interface RejectionPageQuery {
  /** 1 to 200. */
  readonly limit: number;
  readonly reason?: string;
  /** The `next` of the page before, as the store gave it. */
  readonly cursor?: string;
}

export interface RejectionPage {
  /** Newest first. */
  readonly items: readonly StoredRejection[];
  /** Where the next page starts; null after the last. */
  readonly next: string | null;
}

/** The log as its readers page it, and the one record a release reads. */
export interface RejectionArchive {
  /** One page, read with a bounded number of bounded queries whatever the log's size. Throws InvalidRejectionCursorError. */
  page(accountId: string, query: RejectionPageQuery): Promise<RejectionPage>;
  find(accountId: string, rejectionId: string): Promise<StoredRejection | undefined>;
  /** Notes on the record which lead it became (for the listing; the release's marker is its own, see quarantine.ts). */
  markReleased(accountId: string, rejectionId: string, leadId: string, at: string): Promise<void>;
}

/** What a person's data is, as access finds it (CONTRACT.md section 12). */
export interface PersonRecords {
  readonly leads: readonly LeadRecord[];
  readonly rejections: readonly StoredRejection[];
}

/** What an erasure did: leads erased whole, rejection records erased, leads that lost only their alternate number. */
export interface ErasureCounts {
  readonly leads: number;
  readonly rejections: number;
  readonly alternate_numbers: number;
}

/**
 * A person's items within one account, found through keyed-hash lookup items written with each lead
 * and rejection record: never a scan of the account's leads or log.
 */
export interface PersonDataStore {
  findPerson(accountId: string, person: PersonHandle): Promise<PersonRecords>;
  /**
   * Erases every item of the person in the account. Safe to run again after a failure: what was
   * erased stays erased, the rest is erased by the next run, and the counts answered are those of the
   * whole erasure (a journal item carries them between runs); once complete, a new erasure finds zeros.
   */
  erasePerson(accountId: string, person: PersonHandle): Promise<ErasureCounts>;
}

/**
 * A quarantined submission being released (CONTRACT.md sections 11 and 14): the lead's write marks the
 * record released in the same transaction, and stores nothing (QuarantineReleaseRefusedError) when the
 * record is gone (erased since it was read) or was released meanwhile. The erasure refuses to delete a
 * record marked so without erasing the lead it became: one of the two writes goes first, never both blind.
 */
export interface QuarantineRelease {
  readonly rejectionId: string;
}

/** What a lead write is conditioned on besides its own items: a delivery's connection, or a quarantine's release. */
export type WriteGuard = ConnectionGuard | QuarantineRelease;

/** What applying a seed did to one connection (a Google form, a call number). */
export type SeedOutcome = 'added' | 'reconnected' | 'kept_removed' | 'connected_to_another_account';
