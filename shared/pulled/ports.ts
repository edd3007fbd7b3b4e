/** What the pull needs from storage (shared/dynamodb/portal-logins.ts, shared/dynamodb/decided-claims.ts implement it). */
import type { IdempotencyClaim } from '../domain/ports/leads.ts';
import type { Failing, PortalLogin } from './logins.ts';

/** A connected login the schedule pulls. */
export interface DueLogin {
  readonly portal: string;
  readonly login: string;
  readonly accountId: string;
}

/** What a pull does to its login's item: each write conditioned on the pull's lease and on the login being connected. */
export interface PullLoginStore {
  /** Every connected login (the schedule's list). */
  due(): Promise<DueLogin[]>;
  /** The login, leased to `holder` until `until` unless another pull holds it; undefined when busy or not connected. */
  lease(portal: string, login: string, holder: string, now: Date, until: Date): Promise<PortalLogin | undefined>;
  release(portal: string, login: string, holder: string): Promise<void>;
  /** The watermark moved past a slice, its enquiries counted; false when the lease was lost or the login removed. */
  advance(portal: string, login: string, holder: string, through: string, stored: number): Promise<boolean>;
  /** A failed pull noted: its first failure's time kept; `failing` set when given and not set yet (true: it was set now). */
  failed(portal: string, login: string, holder: string, at: string, lastPullAt: string, failing?: Failing): Promise<boolean>;
  /** A good pull: its failure cleared; what it was failing with, when it was. */
  succeeded(portal: string, login: string, holder: string, lastPullAt: string): Promise<Failing | undefined>;
}

export interface DecidedClaims {
  /** The keys (IdempotencyClaim.key) among these whose claim is taken and has not expired. */
  decided(accountId: string, claims: readonly IdempotencyClaim[], now: Date): Promise<Set<string>>;
}
