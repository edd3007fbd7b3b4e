import { describe, expect, it } from '@jest/globals';
import { claimFact, duplicateOf, repeatSettlement, type ClaimFact } from '../../shared/domain/duplicates.ts';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
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

type RepeatSetting = Exclude<DuplicateSetting, 'ignore'>;

const repeatUnder = (setting: RepeatSetting): LeadRecord => ({ ...lead, is_repeated: true, parent_lead_id: setting === 'merge' ? ORIGINAL : null });
const asOriginal: LeadRecord = { ...lead, is_repeated: false, parent_lead_id: null };

describe('a lead whose (project, mobile) has an original already (CONTRACT.md section 3)', () => {
  it('is refused under ignore: nothing is stored', () => {
    expect(duplicateOf('ignore', lead, ORIGINAL)).toBeUndefined();
  });

  it('is a repeat with no parent under create', () => {
    expect(duplicateOf('create', lead, ORIGINAL)).toEqual({ ...lead, is_repeated: true, parent_lead_id: null });
  });

  it('is a repeat linked to the original under merge', () => {
    expect(duplicateOf('merge', lead, ORIGINAL)).toEqual({ ...lead, is_repeated: true, parent_lead_id: ORIGINAL });
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
  // undefined: the repeat stands as written.
  const table: [RepeatSetting, ClaimFact, LeadRecord | undefined][] = [
    ['create', { kind: 'original_exists' }, undefined],
    ['merge', { kind: 'original_exists' }, undefined],
    ['create', { kind: 'original_erased' }, asOriginal],
    ['merge', { kind: 'original_erased' }, asOriginal],
    ['create', { kind: 'claim_held', leadId: NEW_ORIGINAL }, undefined],
    ['merge', { kind: 'claim_held', leadId: NEW_ORIGINAL }, { ...repeatUnder('merge'), parent_lead_id: NEW_ORIGINAL }],
    ['create', { kind: 'own_claim' }, asOriginal],
    ['merge', { kind: 'own_claim' }, asOriginal],
  ];

  it.each(table)('under %s, when the claim is %j, becomes %j', (setting, fact, settled) => {
    expect(repeatSettlement(setting, repeatUnder(setting), fact)).toEqual(settled);
  });

  it('never leaves a repeat pointing at a lead that does not hold the claim', () => {
    for (const [setting, fact] of table) {
      const settled = repeatSettlement(setting, repeatUnder(setting), fact) ?? repeatUnder(setting);
      const holder = fact.kind === 'original_exists' ? ORIGINAL : fact.kind === 'claim_held' ? fact.leadId : fact.kind === 'own_claim' ? LEAD : undefined;
      if (settled.parent_lead_id !== null) expect(settled.parent_lead_id).toBe(holder);
      // An original holds the claim, or takes it in its rewrite.
      if (!settled.is_repeated) expect([undefined, LEAD]).toContain(holder);
    }
  });
});
