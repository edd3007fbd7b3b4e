import { describe, expect, it } from '@jest/globals';
import { claimFact, duplicateDecision, repeatSettlement, type ClaimFact, type RepeatSetting } from '../../shared/domain/duplicates.ts';
import type { LeadRecord } from '../../shared/domain/lead.ts';

const ORIGINAL = '01J00000000000000000000001';
const NEW_ORIGINAL = '01J00000000000000000000002';
const LEAD = '01J00000000000000000000003';

const lead: LeadRecord = {
  id: LEAD,
  name: 'Asha',
  mobile_number: '9876543210',
  projectID: 'PRJ-1',
  campaignID: 'CMP-1',
  source: 'website',
  sub_source: null,
  is_repeated: false,
  parent_lead_id: null,
  created_at: '2026-01-01T00:00:00.000Z',
};

const repeatUnder = (setting: RepeatSetting): LeadRecord => ({ ...lead, is_repeated: true, parent_lead_id: setting === 'merge' ? ORIGINAL : null });
const asOriginal: LeadRecord = { ...lead, is_repeated: false, parent_lead_id: null };

describe('a lead whose (project, mobile) has an original already (CONTRACT.md section 3)', () => {
  it('is refused under ignore: nothing is stored', () => {
    expect(duplicateDecision('ignore', lead, ORIGINAL)).toEqual({ kind: 'refused' });
  });

  it('is a repeat with no parent under create', () => {
    expect(duplicateDecision('create', lead, ORIGINAL)).toEqual({ kind: 'repeat', setting: 'create', lead: { ...lead, is_repeated: true, parent_lead_id: null } });
  });

  it('is a repeat linked to the original under merge', () => {
    expect(duplicateDecision('merge', lead, ORIGINAL)).toEqual({ kind: 'repeat', setting: 'merge', lead: { ...lead, is_repeated: true, parent_lead_id: ORIGINAL } });
  });
});

describe("what the mobile's claim says once a repeat is stored", () => {
  it.each([
    ['the original still holds it', ORIGINAL, { kind: 'original_exists' }],
    ['nobody holds it: the original was erased', undefined, { kind: 'original_erased' }],
    ['another lead holds it: a new original', NEW_ORIGINAL, { kind: 'claim_held', leadId: NEW_ORIGINAL }],
    ['the repeat holds it: an earlier attempt made it the original', LEAD, { kind: 'own_claim' }],
  ] as const)('%s', (_, holder, fact) => {
    expect(claimFact(holder, repeatUnder('merge'), ORIGINAL)).toEqual(fact);
  });
});

describe('a stored repeat, settled against its claim (CONTRACT.md section 14)', () => {
  const table: [RepeatSetting, ClaimFact, ReturnType<typeof repeatSettlement>][] = [
    ['create', { kind: 'original_exists' }, { kind: 'stands', lead: repeatUnder('create') }],
    ['merge', { kind: 'original_exists' }, { kind: 'stands', lead: repeatUnder('merge') }],
    ['create', { kind: 'original_erased' }, { kind: 'rewrite', lead: asOriginal, claim: { kind: 'take' } }],
    ['merge', { kind: 'original_erased' }, { kind: 'rewrite', lead: asOriginal, claim: { kind: 'take' } }],
    ['create', { kind: 'claim_held', leadId: NEW_ORIGINAL }, { kind: 'stands', lead: repeatUnder('create') }],
    [
      'merge',
      { kind: 'claim_held', leadId: NEW_ORIGINAL },
      { kind: 'rewrite', lead: { ...repeatUnder('merge'), parent_lead_id: NEW_ORIGINAL }, claim: { kind: 'held_by', leadId: NEW_ORIGINAL } },
    ],
    ['create', { kind: 'own_claim' }, { kind: 'stands', lead: asOriginal }],
    ['merge', { kind: 'own_claim' }, { kind: 'stands', lead: asOriginal }],
  ];

  it.each(table)('under %s, when the claim is %j: %j', (setting, fact, settlement) => {
    expect(repeatSettlement(setting, repeatUnder(setting), fact)).toEqual(settlement);
  });

  it('never leaves a repeat pointing at a lead that does not hold the claim', () => {
    for (const [setting, fact] of table) {
      const { lead: settled } = repeatSettlement(setting, repeatUnder(setting), fact);
      const holder = fact.kind === 'original_exists' ? ORIGINAL : fact.kind === 'claim_held' ? fact.leadId : fact.kind === 'own_claim' ? LEAD : undefined;
      if (settled.parent_lead_id !== null) expect(settled.parent_lead_id).toBe(holder);
      if (!settled.is_repeated) expect([undefined, LEAD]).toContain(holder);
    }
  });
});
