/**
 * Duplicates (CONTRACT.md section 3, and section 14's rule that a repeat whose original is gone
 * becomes an original), decided here and only here. The store reports what it found of a mobile's
 * claim and writes what it is told (ports/leads.ts: LeadStore). The rule is the pure functions here, each
 * setting against each fact a unit test (test/unit/duplicates.test.ts); settleRepeat runs it against
 * the store.
 */
import type { DuplicateSetting, LeadRecord } from './lead.ts';
import type { IdempotencyClaim, LeadStore } from './ports/leads.ts';

/**
 * A lead whose (project, mobile) has an original already, as it is to be stored: a repeat, linked to
 * the original under merge (always the original, never another repeat: the claim names only
 * originals); undefined under ignore, refused (422 Lead already exists) with nothing stored.
 */
export const duplicateOf = (setting: DuplicateSetting, lead: LeadRecord, originalLeadId: string): LeadRecord | undefined =>
  setting === 'ignore' ? undefined : { ...lead, is_repeated: true, parent_lead_id: setting === 'merge' ? originalLeadId : null };

/**
 * Who holds the mobile's claim once a repeat is stored, read against the original the repeat was
 * made for: that original still (it exists), nobody (it was erased meanwhile), another lead (a new
 * original claimed after the erasure), or the repeat itself (an earlier attempt of this request made
 * it the original already).
 */
export type ClaimFact =
  | { readonly kind: 'original_exists' }
  | { readonly kind: 'original_erased' }
  | { readonly kind: 'claim_held'; readonly leadId: string }
  | { readonly kind: 'own_claim' };

/** The fact of a claim's holder as the store read it (undefined: no claim). */
export const claimFact = (holder: string | undefined, repeat: LeadRecord, originalLeadId: string): ClaimFact =>
  holder === undefined
    ? { kind: 'original_erased' }
    : holder === originalLeadId
      ? { kind: 'original_exists' }
      : holder === repeat.id
        ? { kind: 'own_claim' }
        : { kind: 'claim_held', leadId: holder };

/**
 * What a stored repeat must become, given the claim: the lead as it is to be rewritten, or undefined
 * when it stands as written.
 */
export const repeatSettlement = (setting: DuplicateSetting, repeat: LeadRecord, fact: ClaimFact): LeadRecord | undefined => {
  switch (fact.kind) {
    case 'original_exists':
      return undefined;
    case 'original_erased':
    case 'own_claim':
      return { ...repeat, is_repeated: false, parent_lead_id: null };
    case 'claim_held':
      // Under merge, always the original, never an erased lead (sections 3 and 14); under create a
      // repeat names no parent, so whichever lead is the original, it is right as written.
      return setting === 'merge' ? { ...repeat, parent_lead_id: fact.leadId } : undefined;
  }
};

/** How many times a claim may move under one repeat before the repeat stands as written (the integrity check names it). */
const SETTLE_ATTEMPTS = 3;

/**
 * Settles a repeat the store wrote without confirming its original (a plain batch write, or one whose
 * check the claim refused): reads the claim's holder (one consistent read) and has the repeat
 * rewritten when it must change, against that holder, so a claim moved again meanwhile refuses the
 * rewrite and is read again. The lead as stored, which the answer and a replay carry.
 */
export const settleRepeat = async (
  leads: Pick<LeadStore, 'findOriginal' | 'rewriteRepeat'>,
  accountId: string,
  setting: DuplicateSetting,
  repeat: LeadRecord,
  originalLeadId: string,
  idempotency: IdempotencyClaim | undefined,
): Promise<LeadRecord> => {
  for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
    const holder = await leads.findOriginal(accountId, repeat.projectID, repeat.mobile_number);
    const settled = repeatSettlement(setting, repeat, claimFact(holder, repeat, originalLeadId));
    if (!settled || (await leads.rewriteRepeat(accountId, settled, holder, idempotency))) return settled ?? repeat;
  }
  return repeat;
};
