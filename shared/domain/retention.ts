/**
 * How long an account keeps what names a person (CONTRACT.md section 18, "Retention, per account"):
 * its leads `leadRetentionDays` (30 to 3,650 days, or null: until erased) and its rejection and
 * quarantine records `rejectionRetentionDays` (1 to 30). The rules live here once: the admin API, the
 * CLI and the seed file report the same problems; the sweep and the access answer compute the same
 * deadline from them.
 */

export const LEAD_RETENTION_MIN_DAYS = 30;
export const LEAD_RETENTION_MAX_DAYS = 3650;
export const REJECTION_RETENTION_MIN_DAYS = 1;
/** Today's rejection TTL (30 days) is the longest an account may keep a rejection record. */
export const REJECTION_RETENTION_MAX_DAYS = 30;
export const DEFAULT_REJECTION_RETENTION_DAYS = REJECTION_RETENTION_MAX_DAYS;

/** The length of a retention day: a real day, except under `npm start` and its tests (RETENTION_DAY_SECONDS). */
export const DEFAULT_RETENTION_DAY_SECONDS = 86_400;

/** An account's retention as stored and answered: leads' days (null: until erased) and rejection records' days. */
export interface Retention {
  readonly leadDays: number | null;
  readonly rejectionDays: number;
}

/** A change of retention: a member left out keeps its stored value (`PUT /accounts/{id}`, `set-retention`). */
export interface RetentionChange {
  readonly leadDays?: number | null;
  readonly rejectionDays?: number;
}

export const DEFAULT_RETENTION: Retention = { leadDays: null, rejectionDays: DEFAULT_REJECTION_RETENTION_DAYS };

const show = (value: unknown) => JSON.stringify(value);

const wholeBetween = (value: unknown, min: number, max: number): string | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? undefined : `must be a whole number of days from ${min} to ${max}, not ${show(value)}`;

export const leadRetentionProblem = (value: unknown): string | undefined =>
  value === null ? undefined : wholeBetween(value, LEAD_RETENTION_MIN_DAYS, LEAD_RETENTION_MAX_DAYS)?.replace(/, not /, ' or null (kept until erased), not ');

export const rejectionRetentionProblem = (value: unknown): string | undefined => wholeBetween(value, REJECTION_RETENTION_MIN_DAYS, REJECTION_RETENTION_MAX_DAYS);

/**
 * A `retention` member (`{"leadDays", "rejectionDays"}`), each problem reported under
 * `retention.<member>`; the change, or undefined when there was a problem. Absent: no change.
 */
export const readRetentionChange = (raw: unknown, report: (field: string, problem: string) => void): RetentionChange | undefined => {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    report('retention', 'must be an object with "leadDays" and "rejectionDays"');
    return undefined;
  }
  let problems = 0;
  const counting = (field: string, problem: string) => {
    problems += 1;
    report(field, problem);
  };
  const member = raw as Record<string, unknown>;
  for (const key of Object.keys(member)) if (key !== 'leadDays' && key !== 'rejectionDays') counting(`retention.${key}`, 'is not a known field');
  const leadIssue = member.leadDays === undefined ? undefined : leadRetentionProblem(member.leadDays);
  if (leadIssue) counting('retention.leadDays', leadIssue);
  const rejectionIssue = member.rejectionDays === undefined ? undefined : rejectionRetentionProblem(member.rejectionDays);
  if (rejectionIssue) counting('retention.rejectionDays', rejectionIssue);
  if (problems > 0) return undefined;
  return {
    ...(member.leadDays !== undefined && { leadDays: member.leadDays as number | null }),
    ...(member.rejectionDays !== undefined && { rejectionDays: member.rejectionDays as number }),
  };
};

/**
 * When retention erases a lead created at `createdAt`: `leadDays` retention days later; null when the
 * account keeps leads until erased. The sweep erases what is past it within a day (its schedule).
 */
export const retainedUntil = (createdAt: string, leadDays: number | null | undefined, daySeconds = DEFAULT_RETENTION_DAY_SECONDS): string | null =>
  leadDays === null || leadDays === undefined ? null : new Date(Date.parse(createdAt) + leadDays * daySeconds * 1000).toISOString();

/** The instant before which a lead of the account has aged out at `now`; undefined when the account keeps its leads. */
export const retentionCutoff = (now: Date, leadDays: number | null | undefined, daySeconds = DEFAULT_RETENTION_DAY_SECONDS): string | undefined =>
  leadDays === null || leadDays === undefined ? undefined : new Date(now.getTime() - leadDays * daySeconds * 1000).toISOString();

/** When a rejection record written at `at` expires, in epoch seconds (DynamoDB's TTL). */
export const rejectionExpiry = (at: Date, rejectionDays: number | undefined, daySeconds = DEFAULT_RETENTION_DAY_SECONDS): number =>
  Math.floor(at.getTime() / 1000) + (rejectionDays ?? DEFAULT_REJECTION_RETENTION_DAYS) * daySeconds;
