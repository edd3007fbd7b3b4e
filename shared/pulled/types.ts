/**
 * What a pulled source is (CONTRACT.md section 17): a portal's descriptor (data) and its reader (the
 * wire of its pull API in, enquiries out). Everything else, the schedule, the windows and the
 * watermark, the lease, exactly-once, the leads and records, the events and erasure, is the pull's,
 * written once in shared/pulled/. A new portal is one folder under shared/portals/ and its line in
 * shared/portals/registry.ts.
 */
import type { FailureReason } from './wire-names.ts';

/** One enquiry as its portal gave it, read but not yet judged: the pull makes it a lead or a record. */
export interface Enquiry {
  /** The portal's id of the enquiry (99acres `QueryId`/`TblId`, MagicBricks `id`, Housing.com's derived `h-...`). */
  readonly id: string;
  /** The name as given (trimmed); empty or absent: `Portal enquiry`. */
  readonly name?: string;
  /**
   * The phone as given, with its country code when the portal gives one apart (`isd`, `country_code`):
   * a code other than 91 makes a `validation` record.
   */
  readonly phone?: string;
  readonly countryCode?: string;
  readonly email?: string;
  readonly notes?: string;
  /** When the portal received it, ISO 8601 UTC. */
  readonly receivedAt?: string;
  /** The portal's project (99acres `ProjId`, MagicBricks `pid`, Housing.com `project_id`): the map's key. */
  readonly projectId?: string;
  readonly projectName?: string;
  readonly city?: string;
  /** 99acres `PROPERTY_CODE`, Housing.com `flat_id`. */
  readonly listingId?: string;
}

/** What a reader is asked for: one slice of one login's window. */
export interface SliceRequest {
  /** The portal's base URL (a deployment setting, never an account's input). */
  readonly baseUrl: string;
  readonly login: string;
  /** The credential, opened for this pull only: never logged. */
  readonly credential: string;
  /** Housing.com's feed (`builder` or `broker`); absent for the others. */
  readonly feed?: string;
  readonly from: Date;
  readonly to: Date;
  /** The pull's clock (Housing.com's `current_time`). */
  readonly now: Date;
}

/** How a reader reaches its portal: a bounded HTTP exchange (shared/pulled/http.ts). */
export interface PortalHttp {
  /** The answer's status, type and body as text; a network fault, a timeout or an answer over 10 MiB throws a PortalFailure. */
  send(request: { readonly url: string; readonly method: 'GET' | 'POST'; readonly headers?: Record<string, string>; readonly body?: string }): Promise<PortalAnswer>;
}

export interface PortalAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** A portal's reader: the wire of its pull API, and nothing else. */
export interface PortalReader {
  /** The enquiries of the slice; throws a PortalFailure when the portal's answer is a failure or cannot be read. */
  read(request: SliceRequest, http: PortalHttp): Promise<readonly Enquiry[]>;
}

/** A slice that failed, with one of section 17's four reasons and words without a credential or a person. */
export class PortalFailure extends Error {
  readonly reason: FailureReason;
  constructor(reason: FailureReason, message: string) {
    super(message);
    this.name = 'PortalFailure';
    this.reason = reason;
  }
}

/**
 * A portal declared as data: its name (its leads' `source`, its records' `endpoint`), its title, the
 * environment variable of its base URL and the portal's own default, the setting of its consumers'
 * bound, what its login and credential are, how a project of its enquiries is named (the map's key),
 * and its feeds when it has more than one.
 */
export interface PulledSourceDescriptor {
  readonly name: string;
  readonly leadSource: string;
  readonly title: string;
  /** The portal as the README's opening names it among the channels (`enquiries on 99acres`). */
  readonly brief: string;
  readonly baseUrl: { readonly environment: string; readonly default: string };
  /** What `--login` is, and what the credential read from PORTAL_CREDENTIAL or standard input is. */
  readonly login: string;
  readonly credential: string;
  /** The enquiry's field the map is keyed by (`ProjId`, `pid`, `project_id`). */
  readonly projectField: string;
  /** Its feeds, the first the default (Housing.com's `builder`, `broker`). */
  readonly feeds?: readonly string[];
  /** Its docs page. */
  readonly page: string;
  /**
   * The module, relative to the repository root, that serves its stand-in under `npm start` when its
   * URL is unset (its `startStandIn()`: shared/pulled/stand-in.ts); imported by npm start only.
   */
  readonly standIn: string;
}
