/**
 * The names a pulled source's functions read at run time (CONTRACT.md section 17), written once for
 * every portal: the connection kind `portal_login` and its stored key shape, the pull's settings, the
 * failure reasons and the events. A portal's own folder (shared/portals/<portal>/) adds its descriptor
 * and its reader only.
 */
import type { PlatformWideShape } from '../sources/connection-kind.ts';

/** The kind of connection a portal login is (section 14's lifecycle). */
export const PORTAL_LOGIN_KIND = 'portal_login';
export type PortalLoginKind = typeof PORTAL_LOGIN_KIND;

/**
 * A login's item is keyed by (portal, login) alone: one login belongs to one account. Its guard
 * (shared/dynamodb/connection-items.ts `connectionGuardCheck`) rides in every write a pull makes, so a
 * login removed or moved stops storing at once. Its id in this shape is `<portal>#<login>`.
 */
export const portalLoginShape = {
  scope: 'platform',
  partitionPrefix: 'PORTALLOGIN#',
  itemSortKey: 'PORTALLOGIN',
  listingPrefix: 'PORTALLOGINS#',
  listingSortPrefix: 'LOGIN#',
  idAttribute: 'login_id',
} as const satisfies PlatformWideShape;

/** A login's id in the store and in its guard: the portal and the login. */
export const portalLoginId = (portal: string, login: string): string => `${portal}#${login}`;

/** The operator settings of the pull (the stack's props and CDK context keys, npm start's variables). */
export const pullSettings = {
  pullMinutes: { name: 'portalPullMinutes', environment: 'PORTAL_PULL_MINUTES', default: 5, min: 1, max: 60 },
  overlapMinutes: { name: 'portalPullOverlapMinutes', environment: 'PORTAL_PULL_OVERLAP_MINUTES', default: 15, min: 0, max: 1440 },
  failingMinutes: { name: 'portalFailingMinutes', environment: 'PORTAL_FAILING_MINUTES', default: 60, min: 0.0001, max: 10080 },
  concurrency: { name: 'portalPullConcurrency', environment: 'PORTAL_PULL_CONCURRENCY', default: 4, min: 1, max: 50 },
} as const;

/** A slice is at most 24 hours; a window reaches back at most 7 days; a new login starts 24 hours before it was connected. */
export const SLICE_MS = 24 * 60 * 60 * 1000;
export const CATCH_UP_MS = 7 * 24 * 60 * 60 * 1000;
export const FIRST_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A portal that has not answered in 20 seconds has failed the slice. */
export const PORTAL_TIMEOUT_MS = 20_000;
/** An answer over 10 MiB is refused before it is parsed. */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;
/** How long a pull holds its login's lease: past the function's timeout, so a crashed pull's lease ends on its own. */
export const LEASE_MS = 5 * 60 * 1000;

/** Why a slice failed (section 17), the only words `failing.reason` takes. */
export const failureReasons = ['credential_refused', 'portal_refused', 'portal_unavailable', 'malformed_answer'] as const;
export type FailureReason = (typeof failureReasons)[number];

/** Section 9's bus: what subscribers match on. */
export const portalFailingEvent = { source: 'crm.lead-intake', detailType: 'Portal Failing' } as const;
export const portalRecoveredEvent = { source: 'crm.lead-intake', detailType: 'Portal Recovered' } as const;

/**
 * How a pulled enquiry's record names it (section 17), as a pushed source's descriptor declares its
 * platform id: `admin rejections` shows `99acres broker-1 enquiry Q-1001`, the OpenAPI documents both.
 */
export const enquiryRecordId = {
  field: 'portal_enquiry_id',
  qualifiedBy: ['portal_login'],
  label: 'enquiry',
  descriptions: {
    portal_login: 'A portal enquiry’s record (endpoint `99acres`, `magicbricks` or `housing`): the portal login it was pulled for.',
    portal_enquiry_id: 'A portal enquiry’s record: the portal’s id of the enquiry (99acres `QueryId`, MagicBricks `id`; Housing.com’s derived `h-…`).',
  },
} as const;

/** The idempotency prefix of an enquiry's claim: one per portal (`portal-99acres`), qualified by its login. */
export const enquiryClaimPrefix = (portal: string): string => `portal-${portal}`;
