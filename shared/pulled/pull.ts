/**
 * One pull of one portal login (CONTRACT.md section 17), written once for every portal: the login
 * leased (a scheduled pull and a `pull-portal` never store at once), its window from the watermark
 * less the overlap to now in 24-hour slices (windows.ts), each slice read by the portal's reader, its
 * enquiries' claims read in batches (those decided already cost no write), each other enquiry made a
 * lead through createLead, or a record (recordRefusal), with its id's claim and the login's guard in
 * the one write; the watermark moved past a slice only once every enquiry of it is stored or recorded.
 * A slice that fails stops the pull there (the next one tries it again); failures lasting
 * `portalFailingMinutes` turn the login `failing` with one `Portal Failing` event, and its next good
 * pull sends one `Portal Recovered`. Logs name the account, portal, login, window and counts only.
 */
import { randomUUID } from 'node:crypto';
import type { AccountDirectory } from '../domain/account-directory.ts';
import { createLead, type CreateLeadDependencies } from '../domain/create-lead.ts';
import { ConnectionChangedError, KeyAdminError, FieldValidationError, IdempotencyKeyReusedError, isRejection, LeadErasedError } from '../domain/errors.ts';
import { platformLeadIdempotency, recordRefusal } from '../domain/platform-leads.ts';
import type { ConnectionGuard, ConnectionKind } from '../domain/ports/connections.ts';
import type { RejectionLog } from '../domain/ports/rejections.ts';
import { refusedFields } from '../domain/rejections.ts';
import { rejectionOf, submissionOf } from '../domain/submissions.ts';
import type { LeadSource } from '../domain/lead.ts';
import type { SecretCipher } from '../sealed-secrets.ts';
import type { ValidatedFields } from '../schemas/validate.ts';
import { enquiryBody, enquiryFields } from './enquiries.ts';
import { PortalLoginNotFoundError, type Failing, type PortalLogin } from './logins.ts';
import type { DecidedClaims, PullLoginStore } from './ports.ts';
import { PortalFailure, type Enquiry, type PortalHttp, type PortalReader, type PulledSourceDescriptor } from './types.ts';
import { pullWindow, type Slice } from './windows.ts';
import { enquiryClaimPrefix, LEASE_MS, PORTAL_LOGIN_KIND, portalFailingEvent, portalLoginId, portalLoginShape, portalRecoveredEvent } from './wire-names.ts';

/** A portal as the pull runs it: its descriptor, its reader and its base URL (the deployment's). */
export interface PulledPortal {
  readonly source: PulledSourceDescriptor;
  readonly reader: PortalReader;
  readonly baseUrl: string;
}

export type PortalEvent =
  | { readonly detailType: typeof portalFailingEvent.detailType; readonly detail: { account_id: string; portal: string; login: string } & Failing }
  | {
      readonly detailType: typeof portalRecoveredEvent.detailType;
      readonly detail: { account_id: string; portal: string; login: string; failing_since: string; recovered_at: string };
    };

/** Section 9's bus (EventBridge in AWS, the local webhook under npm start); throws when it could not. */
export interface PortalEventPublisher {
  publish(event: PortalEvent): Promise<void>;
}

export interface PullSettings {
  readonly overlapMinutes: number;
  readonly failingMinutes: number;
}

export interface PullDependencies extends CreateLeadDependencies {
  readonly logins: PullLoginStore;
  readonly directory: AccountDirectory;
  readonly rejections: RejectionLog;
  readonly claims: DecidedClaims;
  readonly cipher: SecretCipher;
  readonly http: PortalHttp;
  readonly events: PortalEventPublisher;
  readonly portals: ReadonlyMap<string, PulledPortal>;
  readonly settings: PullSettings;
  readonly log: (line: Record<string, unknown>) => void;
}

/** What `pull-portal` prints. */
export interface PullSummary {
  readonly stored: number;
  readonly recorded: number;
  readonly already: number;
  readonly pulled_through: string | null;
}

/** Why a pull did not run: another pull holds the login, or it is not connected. */
export type PullRefusal = 'busy' | 'not_connected';

interface Counts {
  stored: number;
  recorded: number;
  already: number;
}

/**
 * One pull of a login; `accountId`: only that account's login (`pull-portal`, the admin API);
 * `stopBy`: no slice starts after it (a function's time running out: the next pull goes on from the
 * watermark, so a long catch-up never ends in a timeout half way through a slice).
 */
export const pullLogin = async (deps: PullDependencies, portalName: string, loginName: string, accountId?: string, stopBy?: Date): Promise<PullSummary | PullRefusal> => {
  const portal = deps.portals.get(portalName);
  if (!portal) return 'not_connected';
  const holder = randomUUID();
  const started = deps.now();
  const login = await deps.logins.lease(portalName, loginName, holder, started, new Date(started.getTime() + LEASE_MS));
  if (!login) {
    const due = (await deps.logins.due()).find((due) => due.portal === portalName && due.login === loginName);
    return due && (accountId === undefined || due.accountId === accountId) ? 'busy' : 'not_connected';
  }
  try {
    if (accountId !== undefined && login.accountId !== accountId) return 'not_connected';
    const summary = await pullLeased(deps, portal, login, holder, started, stopBy);
    deps.log({ event: 'portal_pull', account_id: login.accountId, portal: portalName, login: loginName, ...summary });
    return summary;
  } finally {
    await deps.logins.release(portalName, loginName, holder);
  }
};

/** Another pull of the login is running (the lease): exit 1, 409 in the admin API. */
export class PortalPullBusyError extends KeyAdminError {
  constructor(login: string) {
    super(`A pull of portal login ${login} is running: try again when it has ended`);
  }
}

/** `pull-portal` and the admin API's pull: one pull now of the account's login, or its refusal. */
export const pullPortalNow = async (deps: PullDependencies, accountId: string, portal: string, login: string): Promise<PullSummary> => {
  const outcome = await pullLogin(deps, portal, login, accountId);
  if (outcome === 'busy') throw new PortalPullBusyError(login);
  if (outcome === 'not_connected') throw new PortalLoginNotFoundError(portal, login);
  return outcome;
};

const pullLeased = async (deps: PullDependencies, portal: PulledPortal, login: PortalLogin, holder: string, now: Date, stopBy?: Date): Promise<PullSummary> => {
  const counts: Counts = { stored: 0, recorded: 0, already: 0 };
  const window = pullWindow({
    ...(login.pulledThrough !== undefined && { watermark: new Date(login.pulledThrough) }),
    connectedAt: new Date(login.connectedAt),
    now,
    overlapMs: deps.settings.overlapMinutes * 60_000,
  });
  let pulledThrough = login.pulledThrough ?? null;
  const line = { account_id: login.accountId, portal: login.portal, login: login.login };
  let credential: string;
  try {
    credential = await deps.cipher.open(portalLoginId(login.portal, login.login), login.sealedCredential);
  } catch {
    await failedPull(deps, login, holder, now, new PortalFailure('credential_refused', 'the stored credential could not be opened: connect the login again with its credential'), window.missed);
    return { ...counts, pulled_through: pulledThrough };
  }
  for (const slice of window.slices) {
    if (stopBy && deps.now().getTime() >= stopBy.getTime()) {
      // Every slice tried so far was good: the pull counts as good, the rest is the next one's.
      deps.log({ event: 'portal_pull_slice', ...line, ...window_(slice), outcome: 'deferred' });
      break;
    }
    const before = { ...counts };
    try {
      const enquiries = await portal.reader.read(
        { baseUrl: portal.baseUrl, login: login.login, credential, ...(login.feed !== undefined && { feed: login.feed }), from: slice.from, to: slice.to, now },
        deps.http,
      );
      await storeSlice(deps, portal, login, enquiries, counts, now);
    } catch (error) {
      deps.log({ event: 'portal_pull_slice', ...line, from: slice.from.toISOString(), to: slice.to.toISOString(), outcome: 'failed', ...failureWords(error) });
      if (error instanceof PortalFailure) {
        await failedPull(deps, login, holder, now, error, window.missed);
        return { ...counts, pulled_through: pulledThrough };
      }
      // Removed or moved since the pull began: it stops here (the next pull reads it afresh).
      if (error instanceof ConnectionChangedError) return { ...counts, pulled_through: pulledThrough };
      throw error;
    }
    const stored = counts.stored - before.stored + counts.recorded - before.recorded;
    if (!(await deps.logins.advance(login.portal, login.login, holder, slice.to.toISOString(), stored))) return { ...counts, pulled_through: pulledThrough };
    pulledThrough = slice.to.toISOString();
    deps.log({ event: 'portal_pull_slice', ...line, ...window_(slice), outcome: 'pulled', stored: counts.stored - before.stored, recorded: counts.recorded - before.recorded, already: counts.already - before.already });
  }
  if (login.failing) {
    await deps.events.publish({
      detailType: portalRecoveredEvent.detailType,
      detail: { ...line, failing_since: login.failing.since, recovered_at: now.toISOString() },
    });
  }
  await deps.logins.succeeded(login.portal, login.login, holder, now.toISOString());
  return { ...counts, pulled_through: pulledThrough };
};

const window_ = (slice: Slice) => ({ from: slice.from.toISOString(), to: slice.to.toISOString() });

/** A failure's words for a log line: its reason and message (never a credential: readers' messages carry none), or the error's name. */
const failureWords = (error: unknown) => (error instanceof PortalFailure ? { reason: error.reason, message: error.message } : { error: (error as Error | undefined)?.name ?? 'Error' });

/** A failed pull: noted; past `portalFailingMinutes` since its first failure, the login turns `failing` (one event). */
const failedPull = async (deps: PullDependencies, login: PortalLogin, holder: string, now: Date, failure: PortalFailure, missed: Slice | undefined): Promise<void> => {
  const since = login.failingSince ?? now.toISOString();
  const turns = !login.failing && now.getTime() - Date.parse(since) >= deps.settings.failingMinutes * 60_000;
  if (!turns) {
    await deps.logins.failed(login.portal, login.login, holder, since, now.toISOString());
    return;
  }
  const note = missed ? ` Enquiries received between ${missed.from.toISOString()} and ${missed.to.toISOString()} are past the 7 days a pull reaches back, and were not pulled.` : '';
  const failing: Failing = { since, reason: failure.reason, message: `${failure.message}${note}` };
  try {
    await deps.events.publish({ detailType: portalFailingEvent.detailType, detail: { account_id: login.accountId, portal: login.portal, login: login.login, ...failing } });
  } catch {
    // Not told: not turned either, so the next failed pull tells it.
    await deps.logins.failed(login.portal, login.login, holder, since, now.toISOString());
    return;
  }
  await deps.logins.failed(login.portal, login.login, holder, since, now.toISOString(), failing);
};

/** The slice's enquiries, each a lead or a record once; those whose claim is decided already are counted and not written. */
const storeSlice = async (deps: PullDependencies, portal: PulledPortal, login: PortalLogin, enquiries: readonly Enquiry[], counts: Counts, now: Date): Promise<void> => {
  const unique = [...new Map(enquiries.map((enquiry) => [enquiry.id, enquiry])).values()];
  counts.already += enquiries.length - unique.length;
  const claimed = unique.map((enquiry) => ({ enquiry, claim: platformLeadIdempotency(enquiryClaimPrefix(portal.source.name), portal.source.name, `${login.login}\n${enquiry.id}`) }));
  const decided = claimed.length === 0 ? new Set<string>() : await deps.claims.decided(login.accountId, claimed.map(({ claim }) => claim), now);
  const guard: ConnectionGuard = {
    kind: PORTAL_LOGIN_KIND as ConnectionKind,
    shape: portalLoginShape,
    id: portalLoginId(login.portal, login.login),
    accountId: login.accountId,
    projectId: login.projectId,
    campaignId: login.campaignId,
  };
  for (const { enquiry, claim } of claimed) {
    if (decided.has(claim.key)) {
      counts.already += 1;
      continue;
    }
    counts[await storeEnquiry(deps, portal, login, enquiry, claim, guard)] += 1;
  }
};

const storeEnquiry = async (
  deps: PullDependencies,
  portal: PulledPortal,
  login: PortalLogin,
  enquiry: Enquiry,
  claim: ReturnType<typeof platformLeadIdempotency>,
  guard: ConnectionGuard,
): Promise<keyof Counts> => {
  let fields: ValidatedFields | undefined;
  try {
    fields = enquiryFields(login, enquiry);
    const account = await deps.directory.account(login.accountId);
    const submission = submissionOf({ source: portal.source.leadSource as LeadSource, subSource: () => null }, fields);
    const { replayed } = await createLead(submission, account, deps, { idempotency: claim, guard });
    return replayed ? 'already' : 'stored';
  } catch (error) {
    if (error instanceof IdempotencyKeyReusedError || error instanceof LeadErasedError) return 'already';
    if (!isRejection(error)) throw error;
    const reason = error instanceof FieldValidationError ? 'validation' : error.reason;
    const rejection = rejectionOf(
      portal.source.name,
      {
        reason,
        message: error.message,
        fields: refusedFields(error, fields ?? {}) ?? {},
        platformIds: { portal_login: login.login, portal_enquiry_id: enquiry.id },
      },
      { requestId: `pull-${randomUUID()}`, body: enquiryBody(login, enquiry), ...(fields && { fields }) },
    );
    return (await recordRefusal(deps.rejections, login.accountId, rejection, claim, guard)) === 'recorded' ? 'recorded' : 'already';
  }
};

/** Every connected login pulled once, at most `concurrency` of one portal at a time (npm start's loop; in AWS the queue bounds it). */
export const pullEveryLogin = async (deps: PullDependencies, concurrency: number): Promise<void> => {
  const due = await deps.logins.due();
  const byPortal = new Map<string, typeof due>();
  for (const login of due) byPortal.set(login.portal, [...(byPortal.get(login.portal) ?? []), login]);
  await Promise.all(
    [...byPortal.values()].map(async (logins) => {
      const queue = [...logins];
      await Promise.all(
        Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) {
            await pullLogin(deps, next.portal, next.login).catch((error: unknown) =>
              deps.log({ event: 'portal_pull', account_id: next!.accountId, portal: next!.portal, login: next!.login, outcome: 'error', error: (error as Error | undefined)?.name ?? 'Error' }),
            );
          }
        }),
      );
    }),
  );
};
