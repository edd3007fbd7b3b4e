/**
 * The intake pipeline's types (issue 33): what a source declares for the one shared intake, and what its
 * reader gives it. A source is its folder, its descriptor (data, shared/sources/descriptor.ts) and an
 * `IntakeSource` (code, in its folder): how a delivery proves who sent it, what its body is, its answer,
 * and `read(request) -> deliveries`. The intake (shared/intake/) runs the rest once for every source, in
 * this order: the route's own check, authentication, the body, `read`, then for each delivery in order:
 * ignored or not; the source's admission (a per-key bound); the connection it names looked up (cached:
 * one GetItem cold, none warm) and guarded in the write; the claims the source declares; createLead, or
 * the exactly-once record by platform id (recordOnce); on a changed connection the delivery again on a
 * fresh read (receivedAtOnce). Then the answer the source names, once every delivery was stored, recorded
 * or ignored; within the function's deadline; with the request's log line and metrics.
 *
 * Nothing here names a source. These are additive-only from their first commit: sources in other
 * branches (WhatsApp) build against them.
 */
import type { ConnectionKeyDeclaration } from '../sources/connection-kind.ts';
import type { LeadIntakeError } from '../domain/errors.ts';
import type { KeyEndpoint, LeadSubmission, PersonHandle } from '../domain/lead.ts';
import type { PlatformIds } from '../domain/ports/rejections.ts';
import type { LeadEvent } from '../http/lambda.ts';
import type { ValidatedFields } from '../schemas/validate.ts';

// ---- What a source declares ----------------------------------------------------------------------------

/**
 * How a delivery proves who sent it (CONTRACT.md sections 5, 7, 8, 10, 13), checked before anything of
 * the delivery is read but its body's size, type and JSON where the contract says so:
 * - `api-key`: an API key in `x-api-key` allowed on `endpoint` (the four lead endpoints: 401, 403);
 * - `scoped-api-key`: an API key limited to this source alone (`create-key --endpoints calls`), in
 *   `x-api-key` or the declared query parameter (the call webhook);
 * - `platform-signature`: the platform signs the raw body with the app's secret (Meta's `META_APP_SECRET`,
 *   `X-Hub-Signature-256: sha256=<hex HMAC-SHA256>`): 401 `Invalid signature`, nothing read;
 * - `connection-key`: the delivery carries the key of the connection it names (a Google form's
 *   `google_key`): checked when the connection is looked up, in constant time, an unknown connection
 *   costing the same comparison (ConnectionDirectory).
 */
export type IntakeAuthentication =
  | { readonly kind: 'api-key'; readonly endpoint: KeyEndpoint }
  | { readonly kind: 'scoped-api-key'; readonly scope: { readonly name: string; readonly queryParameter?: string } }
  | { readonly kind: 'platform-signature'; readonly header: string }
  | { readonly kind: 'connection-key' };

/**
 * What a delivery's body is, read before `read` (CONTRACT.md section 1's 413, 415, 400):
 * - `json`: a JSON object (`application/json`);
 * - `signed-json`: a JSON object whose raw bytes the platform signed (read after the signature);
 * - `parameters`: the query, a form or a JSON object read alike (a telephony provider's), left to the
 *   reader (`IntakeRequest.event`), which refuses what it cannot read with section 1's errors.
 */
export type IntakeBodyFormat = 'json' | 'signed-json' | 'parameters';

/** The answer to a request whose deliveries were all stored, recorded or ignored: the descriptor's `acceptance`. */
export interface IntakeAnswer {
  readonly status: 200;
  readonly message: string;
  /** The lead in `data` (the API key endpoints, one delivery a request), or the message alone. */
  readonly withLead: boolean;
}

/**
 * What a delivery whose connection is not connected (none of that id, removed, or another account's for
 * a per-account kind) becomes, as the source declares:
 * - `refuse`: the request is refused with `error` (Google's 401 `Invalid google_key`, the same as a wrong key);
 * - `record`: a rejection record of `error` with `fields` (a call to a number not connected);
 * - `ignore`: logged by the connection's id only and counted (outcome `not_connected`), nothing stored
 *   (a WhatsApp message to a number no account connected).
 */
export type NotConnectedRule =
  | { readonly answer: 'refuse'; readonly error: () => LeadIntakeError }
  | { readonly answer: 'record'; readonly error: () => LeadIntakeError }
  | { readonly answer: 'ignore' };

/** The connections a source's deliveries name, as the intake treats them. */
export interface IntakeConnectionDeclaration {
  /** Its kind as its folder declares it (wire-names.ts): the kind, its key shape (the guard's item), its id rule. */
  readonly key: ConnectionKeyDeclaration;
  readonly notConnected: NotConnectedRule;
}

/**
 * How a source's deliveries become leads: section 2's rules for its fields, then its submission (its
 * lead `source` and sub source, its details as stored). `D` is the source's own delivery type.
 */
export interface IntakeLeadRules<D extends Delivery = Delivery> {
  /** Validated fields of a delivery's lead fields (throws FieldValidationError, a rejection). */
  readonly validate: (fields: Readonly<Record<string, unknown>>, delivery: D) => ValidatedFields;
  /** The submission of the validated fields (submissionOf with the source's tagging, and what it adds). */
  readonly submission: (fields: ValidatedFields, delivery: D) => LeadSubmission;
}

/**
 * A source as the intake runs it: its declaration (names read from its wire-names.ts, never from its
 * descriptor or the registry: bundle size) and its reader. `Route` is what the route's own check found
 * (calls' provider), `D` the source's delivery type.
 */
export interface IntakeSource<D extends Delivery = Delivery, Route = undefined> {
  /** Its name in log lines, metrics and rejection records (`endpoint`). */
  readonly name: string;
  readonly authentication: IntakeAuthentication;
  readonly bodyFormat: IntakeBodyFormat;
  /** The largest body read, in bytes (one more answers 413); section 1's 64 KiB when absent. */
  readonly maxBodyBytes?: number;
  readonly answer: IntakeAnswer;
  /**
   * Its platform id's declaration (descriptor `platformId`): the record attribute of the id, and the
   * prefix of its claim. A delivery with a platform id is stored exactly once under it.
   */
  readonly platformId?: { readonly field: string; readonly idempotencyPrefix: string };
  /** Present when its deliveries name a connection: every write of such a delivery carries its guard. */
  readonly connection?: IntakeConnectionDeclaration;
  readonly lead: IntakeLeadRules<D>;
  /**
   * What the route's path names, checked before the key is read (calls' `{provider}`: 404 `Unknown call
   * provider`). Absent: nothing.
   */
  readonly route?: (event: LeadEvent) => Route;
  /** The deliveries of one request, in the order they were sent (below). Throws section 1's errors (400 a whole request). */
  readonly read: (request: IntakeRequest<Route>) => readonly D[];
  /**
   * Admits the request's deliveries that go on to DynamoDB's writes, once per request (calls' per-key
   * bound: KeyRateExceededError, 429). Not run when every delivery was ignored.
   */
  readonly admit?: (request: IntakeRequest<Route>) => Promise<void>;
}

// ---- What a reader is given ----------------------------------------------------------------------------

/** A request as a reader sees it, authenticated and its body read as declared. */
export interface IntakeRequest<Route = undefined> {
  readonly event: LeadEvent;
  readonly requestId: string;
  /** The route's own check's result (`IntakeSource.route`). */
  readonly route: Route;
  /** The JSON object body (`json`, `signed-json`); absent for `parameters`. */
  readonly body?: Readonly<Record<string, unknown>>;
  /**
   * The account the request's key names (`api-key`, `scoped-api-key`); absent for a delivery that
   * authenticates by its connection or the platform's signature (its connection names the account).
   */
  readonly accountId?: string;
  /** The key's id, for a per-key bound and the record's `key_id`. */
  readonly keyId?: string;
}

// ---- What a reader gives -------------------------------------------------------------------------------

/** A connection's project and campaign: what a delivery's lead fields are given when it names one. */
export interface ConnectionTarget {
  readonly accountId: string;
  readonly projectId: string;
  readonly campaignId: string;
}

/**
 * The connection a delivery names: of the source's declared kind, by its id (a form id, a number's
 * last 10 digits, a phone number id). A per-account kind (call numbers) is looked up under the
 * account (`accountId`: the key's); a kind whose deliveries carry a key (Google's forms) is given the
 * key presented, checked against the stored hash (`connection-key`).
 */
export interface NamedConnection {
  readonly id: string | undefined;
  readonly accountId?: string;
  readonly presentedKey?: string;
  /** The record's `fields` when it is not connected and the source records that (`{ call_number }`). */
  readonly notConnectedFields?: Readonly<Record<string, unknown>>;
}

/**
 * A delivery's platform id (a Google `lead_id`, a provider's call id, a WhatsApp message id) with what
 * qualifies it: `{ provider: 'exotel' }` for a call id, unique within its provider's calls alone. Its
 * records carry both under these names (`provider`, then the source's `platformId.field`); its claim
 * is `[...qualifier values, id]`, so one id stores at most one lead or one record (CONTRACT.md section 14).
 * `id` undefined: a delivery that lacks it (recorded as any, its qualifiers on the record, no claim).
 */
export interface DeliveryPlatformId {
  readonly id: string | undefined;
  readonly qualifiers?: Readonly<Record<string, string>>;
}

/**
 * An item a source adds to its delivery's one write (the lead's or the record's transaction), beside the
 * platform id's claim: a WhatsApp conversation's claim. Declared as data, so the intake knows no source's
 * meaning of it. The store keeps one item per (account, `key`); the write takes it when it is free:
 * none held, held until `at` or before (expired), or held with another `value` while this one carries a
 * value (a new ad's referral). Taken by another delivery meanwhile: the write stores nothing and the
 * delivery is `already_decided`. Once taken it holds until `until`.
 */
export interface DeliveryClaim {
  /** The claim's name within the account (a conversation: its number and a keyed hash of its sender). */
  readonly key: string;
  /** The delivery's time, on the platform's clock (kept on retries): the claim is free when held until it or before. */
  readonly at: string;
  /** Until when the claim holds once taken (ISO 8601). */
  readonly until: string;
  /** What a later delivery with another value takes the claim over from (a conversation's ad `source_id`). */
  readonly value?: string;
  /**
   * Who the claim is with (a conversation's sender): the store keeps the claim under their keyed hash,
   * never the handle, and an erasure of the person forgets it (ports/leads.ts WriteClaim, which this is).
   */
  readonly party: PersonHandle;
}

/**
 * One delivery of a request (one Google lead, one call, one WhatsApp message): what the intake stores
 * once, in order, on its own. A source's delivery type extends this with what its own rules read.
 */
export interface Delivery {
  /**
   * The lead fields before validation, given its connection's project and campaign when it names one
   * (undefined when it names none). Section 2's validation is the source's `lead.validate`.
   */
  readonly fields: (connection: ConnectionTarget | undefined) => Readonly<Record<string, unknown>>;
  /** Its platform id, when the platform gives one (the source then declares `platformId`). */
  readonly platformId?: DeliveryPlatformId;
  /** The connection it names, when the source declares `connection`. */
  readonly connection?: NamedConnection;
  /**
   * Ignored before anything is read or written (a call out; a WhatsApp status receipt): nothing stored,
   * nothing recorded, the word its log line's outcome carries (`ignored`).
   */
  readonly ignored?: string;
  /**
   * Refused before validation (a Google test lead; a call without a call id or a called number): a
   * rejection record of this error (when `refusalFields` are given they are the record's `fields`), kept
   * once under its platform id like any refusal.
   */
  readonly refusal?: LeadIntakeError;
  readonly refusalFields?: Readonly<Record<string, unknown>>;
  /** Whether a refusal before validation is kept on the connection (looked up and guarded) or before it. */
  readonly refusalBeforeConnection?: boolean;
  /** Who the delivery's record names when it is refused before its fields are read (a call's caller), for access and erasure. */
  readonly person?: Readonly<Record<string, unknown>>;
  /**
   * Items of the delivery's one write besides its platform id's claim (DeliveryClaim): taken in the
   * lead's or the record's one transaction (shared/dynamodb/delivery-claims.ts), by a store given their
   * items (the WhatsApp function's); held by another delivery, nothing is stored and the delivery is decided.
   */
  readonly claims?: readonly DeliveryClaim[];
  /**
   * The source says this delivery stores nothing while its first claim is held (a later message of an
   * open conversation): the intake reads that claim once (at most one read) and, held, answers it
   * `already_decided` without a write; free, the delivery goes on and its write takes the claim.
   */
  readonly decidedWhileClaimHeld?: boolean;
}

// ---- What the intake reports ---------------------------------------------------------------------------

/** What became of one delivery, for its log line: the outcome words logs carry today. */
export type DeliveryOutcome =
  | { readonly kind: 'created'; readonly leadId: string; readonly replayed: boolean; readonly repeated: boolean }
  | { readonly kind: 'rejected'; readonly reason: string }
  /** Ignored (`Delivery.ignored`), or its connection not connected under an `ignore` rule. */
  | { readonly kind: 'ignored'; readonly reason: string }
  /** An earlier delivery of its platform id, or the holder of its claim, decided already: nothing changed. */
  | { readonly kind: 'already_decided' };

export type { PlatformIds };
