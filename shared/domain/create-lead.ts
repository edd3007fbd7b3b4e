import type { AccountView } from './account-directory.ts';
import {
  AlreadyReleasedError,
  CampaignNotFoundError,
  IdempotencyKeyReusedError,
  LeadAlreadyExistsError,
  LeadErasedError,
  ProjectNotFoundError,
  SubSourceNotFoundError,
} from './errors.ts';
import { socialPlatforms, type AccountConfig, type LeadRecord, type LeadSubmission, type LegacyQuarantinedSubmission, type QuarantinedSubmission, type SubSourceClaim } from './lead.ts';
import { duplicateOf, settleRepeat } from './duplicates.ts';
import type { IdempotencyClaim, IdempotentReplay, LeadStore, MarkerTaken, WriteClaim, WriteGuard } from './ports/leads.ts';

// Declared with the lead's other words (lead.ts), where the ports can name them without a circle.
export type { LeadSubmission, LegacyQuarantinedSubmission, QuarantinedSubmission, SubSourceClaim };

/** The record's own names for the lead's parts; any other name of a kept submission is an endpoint's field. */
const LEAD_PARTS = ['source', 'name', 'mobile_number', 'email', 'alternate_number', 'projectID', 'campaignID'] as const;

/**
 * The submission as a quarantine record keeps it: one flat shape, every field under its request name.
 * The lead's own parts are written last: an endpoint's field never takes their names.
 */
export const quarantinedSubmission = ({ subSource, details, ...parts }: LeadSubmission): QuarantinedSubmission => ({
  ...details,
  ...parts,
  ...(subSource?.kind === 'website' && { sub_source: subSource.name }),
});

const isLeadPart = (name: string): boolean => (LEAD_PARTS as readonly string[]).includes(name);

/**
 * The submission a quarantine record holds, as a lead is made of it, whichever shape the record was
 * stored in: today's flat one, or one of before (LegacyQuarantinedSubmission), read as they are until
 * they expire.
 */
export const submissionOfQuarantined = (kept: QuarantinedSubmission | LegacyQuarantinedSubmission): LeadSubmission => {
  const { sub_source, subSource: legacyClaim, ...named } = kept as Readonly<Record<string, unknown>>;
  const parts = Object.fromEntries(Object.entries(named).filter(([name]) => isLeadPart(name))) as Omit<LeadSubmission, 'subSource' | 'details'>;
  // Before, the endpoint's fields were nested in a `details` object; a request's own field is text or a number.
  const nested = named.details;
  const details = (
    typeof nested === 'object' && nested !== null ? nested : Object.fromEntries(Object.entries(named).filter(([name]) => !isLeadPart(name)))
  ) as Readonly<Record<string, string | number>>;
  const claim: SubSourceClaim | null =
    legacyClaim !== undefined
      ? (legacyClaim as SubSourceClaim | null)
      : parts.source === 'website' && typeof sub_source === 'string'
        ? { kind: 'website', name: sub_source }
        : parts.source === 'social' && details.platform !== undefined
          ? { kind: 'social', name: String(details.platform) }
          : null;
  return { ...parts, details, subSource: claim };
};

export interface CreateLeadOptions {
  /** Retry safety: a repeat of the key stores nothing and answers the first lead again. */
  readonly idempotency?: IdempotencyClaim;
  /** Run every check, including the duplicate check, and store nothing. */
  readonly dryRun?: boolean;
  /** A delivery's connection (a Google Ads form, a call number: see ConnectionGuard), or a quarantine's release, checked in the lead's own write. */
  readonly guard?: WriteGuard;
  /** A quarantine's release marker, written with the lead without a copy of it; taken: AlreadyReleasedError. */
  readonly releaseMarker?: IdempotencyClaim;
  /** Items taken in the lead's own write besides (a chat's conversation, WriteClaim); one held: ClaimHeldError, nothing stored. */
  readonly claims?: readonly WriteClaim[];
}

export interface LeadOutcome {
  /** The stored lead; in a dry run, the lead that would be stored. */
  readonly lead: LeadRecord;
  /** The lead of an earlier submission under the same idempotency key; nothing was stored now. */
  readonly replayed: boolean;
  readonly dryRun: boolean;
}

export interface CreateLeadDependencies {
  readonly leads: LeadStore;
  readonly newLeadId: () => string;
  readonly now: () => Date;
}

/**
 * Creates a lead for the account: checks its sub source, project and campaign (in that order, the
 * first failure answers), then stores it as the original of its mobile number in the project, or
 * handles it as a duplicate under the account's setting.
 */
export const createLead = async (
  submission: LeadSubmission,
  account: AccountView,
  { leads, newLeadId, now }: CreateLeadDependencies,
  { idempotency, dryRun = false, guard, releaseMarker, claims }: CreateLeadOptions = {},
): Promise<LeadOutcome> => {
  try {
    return await storeLead(submission, account, { leads, newLeadId, now }, { idempotency, dryRun, guard, releaseMarker, claims });
  } catch (error) {
    // A refusal by a check that could answer differently now (a project retired since, a sub source
    // removed): a repeat of a key already answered gets that answer first (CONTRACT.md section 14).
    // Read only on this refusal path, so a new lead's one request stays one.
    if (!idempotency || dryRun || !(error instanceof SubSourceNotFoundError || error instanceof ProjectNotFoundError || error instanceof CampaignNotFoundError)) throw error;
    const earlier = await previousAnswer(leads, account.config.id, idempotency);
    if (earlier) return earlier;
    throw error;
  }
};

/**
 * The answer a key already gave (CONTRACT.md section 14), read before a check that could answer
 * differently: the earlier lead, replayed; undefined when the key is unused. Throws the key's refusals
 * (a different body, an erased lead) as the lead's write would.
 */
export const previousAnswer = async (leads: Pick<LeadStore, 'previousAnswer'>, accountId: string, idempotency: IdempotencyClaim): Promise<LeadOutcome | undefined> => {
  const earlier = await leads.previousAnswer(accountId, idempotency);
  return earlier && replayed(earlier);
};

const storeLead = async (
  submission: LeadSubmission,
  account: AccountView,
  { leads, newLeadId, now }: CreateLeadDependencies,
  { idempotency, dryRun = false, guard, releaseMarker, claims }: CreateLeadOptions,
): Promise<LeadOutcome> => {
  let config = account.config;
  config = await configSatisfying(account, config, (c) => hasSubSource(c, submission.subSource), SubSourceNotFoundError);
  config = await configSatisfying(account, config, (c) => c.projects.has(submission.projectID), ProjectNotFoundError);
  config = await configSatisfying(
    account,
    config,
    (c) => c.campaigns.get(submission.campaignID)?.projectId === submission.projectID,
    CampaignNotFoundError,
  );

  const lead = leadRecord(submission, newLeadId(), now());
  const stored = (result: LeadRecord): LeadOutcome => ({ lead: result, replayed: false, dryRun });

  if (dryRun) {
    const originalLeadId = await leads.findOriginal(config.id, lead.projectID, lead.mobile_number);
    if (originalLeadId === undefined) return stored(lead);
    const repeat = duplicateOf(config.duplicateSetting, lead, originalLeadId);
    if (!repeat) throw new LeadAlreadyExistsError();
    return stored(repeat);
  }

  const outcome = await leads.insertOriginal(config.id, lead, idempotency, guard, releaseMarker, claims);
  if (outcome.kind === 'stored') return stored(lead);
  if (outcome.kind !== 'duplicate') return replayed(outcome);

  const { originalLeadId } = outcome;
  const repeat = duplicateOf(config.duplicateSetting, lead, originalLeadId);
  if (!repeat) throw new LeadAlreadyExistsError();
  const written = await leads.insertRepeat(config.id, repeat, idempotency, guard, releaseMarker, originalLeadId, claims);
  if (written.kind !== 'stored') return replayed(written);
  // Unchecked against its original in its own write: settled against whoever holds the claim now (section 14).
  return stored(written.originalChecked ? repeat : await settleRepeat(leads, config.id, config.duplicateSetting, repeat, originalLeadId, idempotency));
};

/** The idempotency key was used before: the first lead again, or a refusal when the body differs. */
export const replayed = (outcome: IdempotentReplay | MarkerTaken): LeadOutcome => {
  if (outcome.kind === 'marker_taken') throw new AlreadyReleasedError();
  if (outcome.kind === 'key_reused') throw new IdempotencyKeyReusedError();
  if (outcome.kind === 'erased') throw new LeadErasedError();
  return { lead: outcome.lead, replayed: true, dryRun: false };
};

/**
 * The configuration when it satisfies the check; a cached one that does not is re-read once before
 * the refusal, so a project, campaign or sub source created since the cache was filled is found.
 */
const configSatisfying = async (
  account: AccountView,
  config: AccountConfig,
  check: (config: AccountConfig) => boolean,
  Refusal: new () => Error,
): Promise<AccountConfig> => {
  if (check(config)) return config;
  const current = await account.current();
  if (check(current)) return current;
  throw new Refusal();
};

const hasSubSource = (config: AccountConfig, claim: SubSourceClaim | null): boolean => {
  if (!claim || claim.kind === 'of_source') return true;
  if (claim.kind === 'website') return config.websiteSubSources.has(claim.name);
  return (socialPlatforms as readonly string[]).includes(claim.name) && config.socialSubSources.has(claim.name);
};

/** The lead record of a submission (CONTRACT.md section 4), before any duplicate is known. */
export const leadRecord = (submission: LeadSubmission, id: string, createdAt: Date): LeadRecord => {
  const { source, subSource, details, email, alternate_number } = submission;
  return {
    id,
    name: submission.name,
    mobile_number: submission.mobile_number,
    ...(email !== undefined && { email }),
    ...(alternate_number !== undefined && { alternate_number }),
    projectID: submission.projectID,
    campaignID: submission.campaignID,
    source,
    sub_source: subSource?.name ?? null,
    is_repeated: false,
    parent_lead_id: null,
    created_at: createdAt.toISOString(),
    ...details,
  };
};
