/**
 * What the rejection log needs from storage: a refusal kept (once per platform id), and the archive's
 * pages of them.
 */
import type { LeadRecord, LegacyQuarantinedSubmission, PersonIdentifiers, QuarantinedSubmission } from '../lead.ts';
import type { IdempotencyClaim, IdempotentReplay, WriteClaim } from './leads.ts';
import type { ConnectionGuard } from './connections.ts';

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
