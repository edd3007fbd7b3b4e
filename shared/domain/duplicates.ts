/**
 * Duplicates (CONTRACT.md section 3, and section 14's rule that a repeat whose original is gone
 * becomes an original), decided here and only here. The store reports what it found of a mobile's
 * claim and writes what it is told (ports.ts: LeadStore); these functions are the whole rule, pure,
 * so each setting against each fact is a unit test (test/unit/duplicates.test.ts).
 */
import type { DuplicateSetting, LeadRecord } from './lead.ts';
import type { IdempotencyClaim, LeadStore, RepeatClaim } from './ports.ts';

/** A setting under which a duplicate is stored: under `ignore` no repeat is ever written. */
export type RepeatSetting = Exclude<DuplicateSetting, 'ignore'>;

/** What a new lead is, given the original its (project, mobile) has already. */
export type DuplicateDecision =
  | { readonly kind: 'repeat'; readonly lead: LeadRecord; readonly setting: RepeatSetting }
  /** `ignore`: 422 Lead already exists, nothing stored. */
  | { readonly kind: 'refused' };

export const duplicateDecision = (setting: DuplicateSetting, lead: LeadRecord, originalLeadId: string): DuplicateDecision => {
  if (setting === 'ignore') return { kind: 'refused' };
  // Under merge, always the original, never another repeat (section 3): the claim names only originals.
  return { kind: 'repeat', setting, lead: { ...lead, is_repeated: true, parent_lead_id: setting === 'merge' ? originalLeadId : null } };
};

/**
 * Who holds the mobile's claim once a repeat is stored, read against the original the repeat was
 * made for: that original still (it exists), nobody (it was erased meanwhile), another lead (a new
 * original claimed after the erasure), or the repeat itself (an earlier attempt of this request
 * already made it the original).
 */
export type ClaimFact =
  | { readonly kind: 'original_exists' }
  | { readonly kind: 'original_erased' }
  | { readonly kind: 'claim_held'; readonly leadId: string }
  | { readonly kind: 'own_claim' };

/** The fact of a claim's holder as the store read it (undefined: no claim). */
export const claimFact = (holder: string | undefined, repeat: LeadRecord, originalLeadId: string): ClaimFact => {
  if (holder === undefined) return { kind: 'original_erased' };
  if (holder === originalLeadId) return { kind: 'original_exists' };
  if (holder === repeat.id) return { kind: 'own_claim' };
  return { kind: 'claim_held', leadId: holder };
};

/**
 * What a stored repeat must become, given the claim: it stands as written, or it is rewritten (the
 * lead as it becomes, and the claim the write takes or checks, so that a claim moved again meanwhile
 * refuses the write rather than settling against a stale read).
 */
export type RepeatSettlement =
  | { readonly kind: 'stands'; readonly lead: LeadRecord }
  | { readonly kind: 'rewrite'; readonly lead: LeadRecord; readonly claim: RepeatClaim };

export const repeatSettlement = (setting: RepeatSetting, repeat: LeadRecord, fact: ClaimFact): RepeatSettlement => {
  const asOriginal: LeadRecord = { ...repeat, is_repeated: false, parent_lead_id: null };
  switch (fact.kind) {
    case 'original_exists':
      return { kind: 'stands', lead: repeat };
    case 'own_claim':
      // Its claim was written with it being made the original: the lead is stored as an original already.
      return { kind: 'stands', lead: asOriginal };
    case 'original_erased':
      return { kind: 'rewrite', lead: asOriginal, claim: { kind: 'take' } };
    case 'claim_held':
      // Under create a repeat names no parent: whichever lead is the original, it is right as written.
      if (setting === 'create') return { kind: 'stands', lead: repeat };
      // Always the original, never another repeat, never an erased lead (sections 3 and 14).
      return { kind: 'rewrite', lead: { ...repeat, parent_lead_id: fact.leadId }, claim: { kind: 'held_by', leadId: fact.leadId } };
  }
};

/** How many times a claim may move under one repeat before the repeat stands as written (the integrity check names it). */
const SETTLE_ATTEMPTS = 3;

/**
 * Settles a repeat the store wrote without checking its original (a plain batch write, or a
 * transaction whose check of the original failed): reads the claim (one consistent read), and
 * rewrites the repeat when it must change. The lead as stored, which the answer and a replay carry.
 */
export const settleRepeat = async (
  leads: Pick<LeadStore, 'findOriginal' | 'rewriteRepeat'>,
  accountId: string,
  setting: RepeatSetting,
  repeat: LeadRecord,
  originalLeadId: string,
  idempotency: IdempotencyClaim | undefined,
): Promise<LeadRecord> => {
  for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
    const holder = await leads.findOriginal(accountId, repeat.projectID, repeat.mobile_number);
    const settlement = repeatSettlement(setting, repeat, claimFact(holder, repeat, originalLeadId));
    if (settlement.kind === 'stands') return settlement.lead;
    // The claim moved again between the read and the write (or the lead itself was erased): read it again.
    if ((await leads.rewriteRepeat(accountId, settlement.lead, settlement.claim, idempotency)) === 'rewritten') return settlement.lead;
  }
  return repeat;
};
