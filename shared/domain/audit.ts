/**
 * Every look at a person's data, on record (CONTRACT.md section 18): one audit entry per admin operation
 * that returns or erases a person's data, whether the admin CLI or the admin API asked, written before
 * the answer. No entry, no answer: an entry that cannot be written makes the operation answer 503 and
 * return nothing. An entry names who asked and what was asked about only by a keyed hash, never by a
 * name, number or e-mail, and outlives the erasure of the person it is about.
 */
import { isoInstant } from './api-keys.ts';
import { AccountNotFoundError, InvalidConfigurationError, ServiceUnavailableError } from './errors.ts';
import type { PersonHandle } from './lead.ts';
import type { AccountReader } from './ports/keys-and-accounts.ts';
import type { PersonKeyring } from './person-data.ts';
import { pageLimit, type PageRequest } from './quarantine.ts';

/** What an operation did with a person's data, the same word whether the CLI or the API was used. */
export const auditOperations = ['person_access', 'person_erasure', 'leads_list', 'rejections_list', 'release', 'audit_list'] as const;
export type AuditOperation = (typeof auditOperations)[number];

/** One entry, as `admin audit --json` and `GET /accounts/{accountId}/audit` list it. */
export interface AuditEntry {
  readonly at: string;
  readonly account_id: string;
  readonly operation: AuditOperation;
  /** Who asked: the caller's IAM principal ARN in AWS, the local access key id or `local cli` under npm start. */
  readonly principal: string;
  /** The admin API answer's x-request-id; a CLI run's own id. */
  readonly request_id: string;
  /** A keyed hash of the mobile or e-mail asked about, or null. */
  readonly subject: string | null;
  /** How many leads and records were returned or erased. */
  readonly count: number;
}

/** Who asks, as the caller's surface knows it. */
export interface AuditCaller {
  readonly principal: string;
  readonly requestId: string;
}

export interface AuditPageQuery {
  readonly limit: number;
  readonly since?: string;
  readonly operation?: AuditOperation;
  readonly cursor?: string;
}

export interface AuditPage {
  readonly items: readonly AuditEntry[];
  readonly next: string | null;
}

/** Where entries are kept, at least `retentionDays` (shared/dynamodb/audit.ts). */
export interface AuditLog {
  /** Writes the entry; throws when it cannot be written. */
  record(entry: AuditEntry): Promise<void>;
  page(accountId: string, query: AuditPageQuery): Promise<AuditPage>;
}

/** How long entries are kept, at least (a stack setting, `auditRetentionDays`). */
export const MIN_AUDIT_RETENTION_DAYS = 365;

/** The environment variable that carries the stack's `auditRetentionDays` to the admin function (and the CLI). */
export const AUDIT_RETENTION_DAYS_VARIABLE = 'AUDIT_RETENTION_DAYS';

/** The stack's audit retention, never below 365 days. */
export const auditRetentionDaysFromEnvironment = (env: NodeJS.ProcessEnv): number => {
  const days = Number(env[AUDIT_RETENTION_DAYS_VARIABLE]);
  return Number.isSafeInteger(days) && days > MIN_AUDIT_RETENTION_DAYS ? days : MIN_AUDIT_RETENTION_DAYS;
};

/** Seconds a caller is asked to wait when an entry could not be written. */
const AUDIT_RETRY_AFTER_SECONDS = 1;

export interface AuditDependencies {
  readonly audit: AuditLog;
  readonly keyring: PersonKeyring;
  readonly accounts: AccountReader;
  readonly now?: () => Date;
}

/** What one audited operation is about: its word, and the person asked about (when one was). */
export interface AuditedOperation<T> {
  readonly operation: AuditOperation;
  readonly subject?: PersonHandle;
  /** The leads and records the answer returns or erased. */
  readonly count: (answer: T) => number;
}

/**
 * Runs an operation that returns or erases a person's data and records its entry before its answer is
 * given: the answer is returned only once its entry is written. An operation that failed (a refusal, an
 * unknown account) returned nothing and has no entry; an entry that cannot be written answers 503
 * (ServiceUnavailableError) and nothing of the operation's answer.
 */
export const audited = async <T>(deps: AuditDependencies, caller: AuditCaller, accountId: string, what: AuditedOperation<T>, run: () => Promise<T>): Promise<T> => {
  const answer = await run();
  const subject = what.subject === undefined ? null : await deps.keyring.digest(what.subject);
  const entry: AuditEntry = {
    at: (deps.now ?? (() => new Date()))().toISOString(),
    account_id: accountId,
    operation: what.operation,
    principal: caller.principal,
    request_id: caller.requestId,
    subject,
    count: what.count(answer),
  };
  try {
    await deps.audit.record(entry);
  } catch (error) {
    throw new ServiceUnavailableError(AUDIT_RETRY_AFTER_SECONDS, { cause: error });
  }
  return answer;
};

export interface AuditPageRequest extends Omit<PageRequest, 'reason'> {
  readonly since?: string;
  readonly operation?: string;
}

/**
 * One page of an account's audit, newest first, with the cursor of the next; listing it is itself an
 * audited operation (`audit_list`), whose entry counts the entries returned.
 */
export const auditPage = async (deps: AuditDependencies, caller: AuditCaller, accountId: string, request: AuditPageRequest): Promise<AuditPage> => {
  const limit = pageLimit(request.limit);
  const problems: Record<string, string[]> = {};
  if (request.operation !== undefined && !(auditOperations as readonly string[]).includes(request.operation)) {
    problems.operation = [`operation must be one of ${auditOperations.join(', ')}`];
  }
  const since = request.since === undefined ? undefined : (isoInstant(request.since) ?? null);
  if (since === null) problems.since = ['since must be an ISO 8601 date or time such as 2026-01-31 or 2026-01-31T09:30:00Z'];
  if (Object.keys(problems).length > 0) throw new InvalidConfigurationError(problems);
  return audited(deps, caller, accountId, { operation: 'audit_list', count: (page) => page.items.length }, async () => {
    await existingAccount(deps.accounts, accountId);
    return deps.audit.page(accountId, {
      limit,
      ...(since !== undefined && since !== null && { since }),
      ...(request.operation !== undefined && { operation: request.operation as AuditOperation }),
      ...(request.cursor !== undefined && { cursor: request.cursor }),
    });
  });
};

const existingAccount = async (accounts: AccountReader, accountId: string) => {
  if (!(await accounts.loadAccount(accountId))) throw new AccountNotFoundError();
};
