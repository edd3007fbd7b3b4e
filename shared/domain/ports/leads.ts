/**
 * What creating a lead needs from storage: the lead's one transaction with its claim, its repeat's
 * facts, and the guards a write may carry.
 */
import type { LeadRecord, PersonHandle } from '../lead.ts';
import type { ConnectionGuard } from './connections.ts';

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
