/**
 * The retention sweep (CONTRACT.md section 18): for each account that keeps its leads or rejection
 * records for a time, erases what has aged out, as section 12 erases a person's lead (the store's
 * erasure is the same code), the CRM hearing `Lead Erased` with reason `retention`.
 *
 * - Found by age, never by a scan (the store's by_age index and time-sorted record partitions), against
 *   the account's setting as it is now: shortening it applies to what is already stored.
 * - Resumable and once only: an erased item leaves what the sweep queries, and each erasure is
 *   conditioned on its item still being there, so a run stopped anywhere is finished by the next,
 *   and nothing is erased twice (nor heard of twice).
 * - Bounded in time: it stops between items once `remainingMs()` falls below its reserve, and says so
 *   (`complete: false`); the next run (the next day's, or npm start's next) goes on.
 * - Safe beside every other write: a lead stored, repeated, released or erased meanwhile is settled by
 *   the store's conditions exactly as beside a person's erasure (shared/domain/duplicates.ts: a repeat
 *   whose original went becomes the original).
 */
import { retentionOf } from './account-admin.ts';
import type { AccountReader } from './ports/keys-and-accounts.ts';
import type { RetentionAccounts, RetentionStore } from './ports/retention.ts';
import { DEFAULT_RETENTION_DAY_SECONDS, retentionCutoff } from './retention.ts';

/** Time kept back from the run's end for the item under way and the summary. */
export const SWEEP_RESERVE_MS = 10_000;

export interface RetentionSweepDeps {
  readonly accounts: AccountReader & RetentionAccounts;
  readonly store: RetentionStore;
  readonly now?: () => Date;
  /** The length of a retention day (RETENTION_DAY_SECONDS under npm start; a day in AWS). */
  readonly daySeconds?: number;
  /** Milliseconds the run may still take (a Lambda's remaining time); unbounded when not given. */
  readonly remainingMs?: () => number;
  readonly reserveMs?: number;
}

export interface SweepSummary {
  readonly accounts: number;
  readonly leads: number;
  readonly rejections: number;
  /** False when the run stopped for time: the next run finishes it. */
  readonly complete: boolean;
}

export const sweepRetention = async (deps: RetentionSweepDeps): Promise<SweepSummary> => {
  const now = (deps.now ?? (() => new Date()))();
  const daySeconds = deps.daySeconds ?? DEFAULT_RETENTION_DAY_SECONDS;
  const reserve = deps.reserveMs ?? SWEEP_RESERVE_MS;
  const outOfTime = () => deps.remainingMs !== undefined && deps.remainingMs() < reserve;
  let accounts = 0;
  let leads = 0;
  let rejections = 0;
  for (const accountId of await deps.accounts.accountsWithRetention()) {
    if (outOfTime()) return { accounts, leads, rejections, complete: false };
    const account = await deps.accounts.loadAccount(accountId);
    if (!account) continue;
    accounts += 1;
    const retention = retentionOf(account);
    const leadCutoff = retentionCutoff(now, retention.leadDays, daySeconds);
    if (leadCutoff !== undefined) {
      for await (const lead of deps.store.agedLeads(accountId, leadCutoff)) {
        if (outOfTime()) return { accounts, leads, rejections, complete: false };
        if (await deps.store.eraseAgedLead(accountId, lead, leadCutoff)) leads += 1;
      }
    }
    const recordCutoff = retentionCutoff(now, retention.rejectionDays, daySeconds)!;
    for await (const record of deps.store.agedRejections(accountId, recordCutoff)) {
      if (outOfTime()) return { accounts, leads, rejections, complete: false };
      if (await deps.store.eraseAgedRejection(accountId, record)) rejections += 1;
    }
  }
  return { accounts, leads, rejections, complete: true };
};
