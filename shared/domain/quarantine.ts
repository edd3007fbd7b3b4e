/**
 * The rejection log as its readers use it (CONTRACT.md section 11): pages of it, newest first, and the
 * release of a quarantined submission into a lead. Plain typed input and typed errors, so the admin CLI
 * and the admin API are thin clients of the same code.
 */
import type { AccountView } from './account-directory.ts';
import { accountIdProblem } from './account-admin.ts';
import { createLead, submissionOfQuarantined, type CreateLeadDependencies, type LeadOutcome } from './create-lead.ts';
import {
  AccountNotFoundError,
  AlreadyReleasedError,
  IdempotencyKeyReusedError,
  InvalidConfigurationError,
  NotQuarantinedError,
  QuarantineReleaseRefusedError,
  RejectionNotFoundError,
} from './errors.ts';
import type { AccountReader } from './ports/keys-and-accounts.ts';
import type { IdempotencyClaim } from './ports/leads.ts';
import type { RejectionArchive, RejectionPage, StoredRejection } from './ports/rejections.ts';
import { createHash } from 'node:crypto';
import { currentReasonOf, REJECTION_DAYS } from './rejections.ts';

/** The reasons whose records hold the whole submission, and can be released into a lead. */
export const QUARANTINE_REASONS: readonly string[] = ['honeypot', 'captcha_failed', 'captcha_unavailable'];

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;
/** The release marker outlives the record it marks, so a record TTL has not yet deleted cannot be released twice. */
const RELEASE_MARKER_SECONDS = 2 * REJECTION_DAYS * 24 * 60 * 60;
/** How long a request's Idempotency-Key holds (the README's retry-safe submissions). */
const IDEMPOTENCY_HOURS = 24;

export interface RejectionLogDependencies {
  readonly rejections: RejectionArchive;
  readonly accounts: AccountReader;
}

export interface PageRequest {
  /** As given: a number, or the text of a query string or an option; absent: 50. */
  readonly limit?: number | string;
  readonly reason?: string;
  readonly cursor?: string;
}

/** Checks the limit: a whole number from 1 to 200. */
export const pageLimit = (limit: number | string | undefined): number => {
  if (limit === undefined) return DEFAULT_PAGE_LIMIT;
  const n = typeof limit === 'number' ? limit : /^\s*\d+\s*$/.test(limit) ? Number(limit) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_PAGE_LIMIT) {
    throw new InvalidConfigurationError({ limit: [`limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}`] });
  }
  return n;
};

const REASON = /^[a-z][a-z0-9_]{0,63}$/;

/** One page of an account's log, newest first, with the cursor of the next. */
export const rejectionPage = async (deps: RejectionLogDependencies, accountId: string, request: PageRequest): Promise<RejectionPage> => {
  const limit = pageLimit(request.limit);
  if (request.reason !== undefined && !REASON.test(request.reason)) {
    throw new InvalidConfigurationError({ reason: ['reason must be a rejection reason such as honeypot or validation'] });
  }
  await existingAccount(deps.accounts, accountId);
  return deps.rejections.page(accountId, {
    limit,
    // A former name (field_validation) lists today's records and those stored under it.
    ...(request.reason !== undefined && { reason: currentReasonOf(request.reason) }),
    ...(request.cursor !== undefined && { cursor: request.cursor }),
  });
};

export interface ReleaseDependencies extends RejectionLogDependencies, CreateLeadDependencies {}

/**
 * Turns a quarantined submission into a lead through the duplicate rules as they stand now (the
 * lead's `created_at` is the release time), once. The lead is written with a release marker in the
 * same transaction (an idempotency claim keyed by the record's id), so two releases at once store one
 * lead: the second finds the marker and is refused `Already released`.
 * A record of a request that had an `Idempotency-Key` also claims that key in the same write, while the
 * key holds (24 hours from the request): the release and a later request with the key are one lead
 * (CONTRACT.md section 14). A request that stored the lead first leaves the release `Already
 * released`; a request after the release is answered the released lead. The key's record may hold the
 * quarantine's own answer (its 200 as for a new lead): the release replaces it with the stored lead.
 * Throws the lead's own refusals (422) as the lead endpoint would answer them.
 */
export const releaseQuarantined = async (deps: ReleaseDependencies, accountId: string, rejectionId: string): Promise<LeadOutcome> => {
  // Read now, not from a cache: the duplicate setting and projects as they stand at the release.
  const config = await existingAccount(deps.accounts, accountId);
  const record = await deps.rejections.find(accountId, rejectionId);
  const oldest = new Date(deps.now().getTime() - REJECTION_DAYS * 86_400_000).toISOString();
  if (!record || record.created_at < oldest) throw new RejectionNotFoundError();
  if (!QUARANTINE_REASONS.includes(record.reason) || !record.submission) throw new NotQuarantinedError();
  if (record.released_at !== undefined) throw new AlreadyReleasedError();
  const account: AccountView = { config, current: async () => config };
  const submission = submissionOfQuarantined(record.submission);
  const marker: IdempotencyClaim = {
    key: `rejection-release\n${record.id}`,
    requestHash: createHash('sha256').update(`release\n${accountId}\n${record.id}`).digest('hex'),
    ttlSeconds: RELEASE_MARKER_SECONDS,
  };
  // The lead's write marks the record released, and stores nothing if an erasure took the record since it was read.
  const guard = { rejectionId: record.id };
  const requestKey = requestKeyOf(record, deps.now());
  let outcome: LeadOutcome;
  try {
    if (!requestKey) {
      outcome = await createLead(submission, account, deps, { idempotency: marker, guard });
    } else {
      try {
        // The key's record holds the lead (its replays answer it); the marker beside it holds no copy.
        outcome = await createLead(submission, account, deps, { idempotency: requestKey, releaseMarker: marker, guard });
      } catch (error) {
        // The key holds another body's lead (a sender reusing keys): this submission is not stored yet.
        if (!(error instanceof IdempotencyKeyReusedError)) throw error;
        outcome = await createLead(submission, account, deps, { idempotency: marker, guard });
      }
    }
  } catch (error) {
    if (!(error instanceof QuarantineReleaseRefusedError)) throw error;
    throw (await deps.rejections.find(accountId, rejectionId)) ? new AlreadyReleasedError() : new RejectionNotFoundError();
  }
  // The marker, or the request's key, answered already: released, or stored by the request itself.
  if (outcome.replayed) throw new AlreadyReleasedError();
  // For the listing only: the marker written with the lead is what makes the release happen once.
  await deps.rejections.markReleased(accountId, record.id, outcome.lead.id, outcome.lead.created_at);
  return outcome;
};

/** The quarantined request's key as the release claims it: for what is left of its 24 hours; none after. */
const requestKeyOf = (record: StoredRejection, now: Date): IdempotencyClaim | undefined => {
  if (record.idempotency_key === undefined || record.idempotency_request_hash === undefined) return undefined;
  const left = Math.floor((Date.parse(record.created_at) + IDEMPOTENCY_HOURS * 3_600_000 - now.getTime()) / 1000);
  if (left <= 0) return undefined;
  return { key: record.idempotency_key, requestHash: record.idempotency_request_hash, ttlSeconds: left, quarantineId: record.id };
};

const existingAccount = async (accounts: AccountReader, accountId: string) => {
  const problem = accountIdProblem(accountId);
  if (problem) throw new InvalidConfigurationError({ accountId: [problem] });
  const config = await accounts.loadAccount(accountId);
  if (!config) throw new AccountNotFoundError();
  return config;
};
