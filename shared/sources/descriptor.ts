/**
 * A lead source declared as data (docs/adding-a-lead-source.md): what the stack, `npm start`, `npm run
 * invoke`, the banner, OpenAPI, monitoring, the admin API and CLI and the seed need to know about it,
 * with no code of its own. What
 * really differs from one source to another (Google's column mapping, Meta's Graph read) is its own
 * module, behind its handler (`entry`). Descriptors carry the names already deployed and stored
 * (`google_lead_id`, `googleAdsThrottlingRateLimit`, the construct ids of its function): declaring a
 * source changes no wire, no stored item and no deployed resource.
 *
 * Data only: a descriptor module imports types and its source's wire-names.ts (what its functions read
 * at run time), nothing else. No function imports a descriptor, so a function's bundle holds its own
 * source's wire names and never another source. The registry (registry.ts), which lists them all, is
 * for the stack and the local tools: no handler imports it.
 */
import type { ConnectionKindDeclaration } from './connection-kind.ts';
import type { AdminRoute } from '../routes.ts';

export type SourceMethod = 'GET' | 'POST' | 'OPTIONS';

export interface LeadSourceDescriptor {
  /**
   * The source's name in its log lines, metrics and rejection records (`endpoint`): `website`,
   * `google_ads`, `meta`.
   */
  readonly name: string;
  /** Its name on the command line (`npm run invoke -- <invokeName>`), and its local function's (`lead-intake-<invokeName>`). */
  readonly invokeName: string;
  /** The `source` of the leads it creates (CONTRACT.md section 4); Meta's leads are `social`. */
  readonly leadSource: string;
  /** A short title for the banner, the dashboard and OpenAPI. */
  readonly title: string;
  /**
   * How the README's opening names the channel, for someone who has never seen the service ("calls to a
   * project's number"): `npm run docs` writes every source's there (scripts/docs/readme-channels.ts), so
   * a source added to the registry is named without a hand edit.
   */
  readonly brief: string;
  /**
   * Its public route: one path, the methods API Gateway routes to its function, and whether its
   * deliveries carry parameters in the query string (Meta's subscription check): the local server hands
   * the query on only then, as the handlers of the others never read it.
   */
  readonly route: { readonly path: string; readonly methods: readonly SourceMethod[]; readonly queryString?: boolean };
  /**
   * The largest body its function reads, in bytes (one more answers 413), when it is not section 1's
   * 64 KiB: the handler's own bound (its intake source reads it from the same wire names), and what
   * `npm start` reads of a body (the largest route's, scripts/local/http-server.ts), as deployed.
   */
  readonly maxBodyBytes?: number;
  /** The handler module, relative to the repository root (it exports `handler`): a literal, never imported by the registry. */
  readonly entry: string;
  /** What a delivery's body is: a JSON object (section 1), or a JSON object signed by the platform (Meta's). */
  readonly bodyFormat: 'json' | 'signed-json';
  /**
   * How a delivery proves who sent it: an API key (`x-api-key`, sections 5 and 7), an API key scoped to
   * this source alone, in `x-api-key` or, for senders that cannot set headers, the query (the call
   * webhook's `calls` key, section 13), the key of the connection it names (a Google form's
   * `google_key`), or the platform's signature (Meta's).
   */
  readonly authentication: 'api-key' | 'scoped-api-key' | 'connection-key' | 'platform-signature';
  /** A `scoped-api-key` source's key scope (KeyScopeDeclaration); only such a source has one. */
  readonly keyScope?: KeyScopeDeclaration;
  /** Browser forms post here: it answers CORS preflight (OPTIONS) itself, with the browser keys' origins. */
  readonly browserFacing: boolean;
  /**
   * Its route's own throttle, as two operator settings of the stack (lib/settings.ts derives them from
   * here: CDK context keys, typed props, defaults, bounds); absent: the stage's default
   * (`throttlingRateLimit`, `throttlingBurstLimit`).
   */
  readonly throttle?: RouteThrottleDeclaration;
  /**
   * Operator settings of its function beyond its throttle (WhatsApp's conversation window): each a
   * typed prop and CDK context key of the stack with its default and bounds (lib/settings.ts derives
   * them from here), handed to its function as an environment variable, and read by `npm start` from
   * the same variable.
   */
  readonly settings?: readonly FunctionSettingDeclaration[];
  /**
   * The kind of connection its deliveries name, declared in its folder (connection-kind.ts): every write
   * of a delivery that names one carries the connection's guard, so a rotated key, a removed or a moved
   * connection takes effect at once whatever the cache (CONTRACT.md section 14; Google's forms, call
   * numbers). The one connection lifecycle gives it its admin routes, admin CLI verbs, seed member and
   * their OpenAPI from the declaration alone.
   */
  readonly connection?: ConnectionKindDeclaration;
  /**
   * What a channel of its leads is beyond source and sub source (CONTRACT.md section 16): the lead item's
   * attribute that names the connection a lead came through (a Google form's `google_form_id`, a call's
   * `call_number`). Absent: its leads came through no connection. The quiet-source watch reads it from
   * here (registry.ts `channelConnectionFields`), so a new source's channels need no code of their own.
   */
  readonly channel?: { readonly connectionField: string };
  /** The platform's own id of a delivery, when it has one (PlatformIdDeclaration). */
  readonly platformId?: PlatformIdDeclaration;
  /** Its answer when a delivery is accepted (CONTRACT.md): status and message, with the lead in `data` or not. */
  readonly acceptance: { readonly status: 200; readonly message: string; readonly withLead: boolean };
  /**
   * Where the stack builds its function, by today's construct ids (so declaring a source replaces no
   * deployed function): its path of construct ids under the stack, its integration's id, and its name
   * on the dashboard and in its alarms' ids.
   */
  readonly stack: { readonly functionPath: readonly string[]; readonly integrationId: string; readonly monitoringName: string };
  /**
   * An asynchronous source (Meta's): its webhook only queues what it receives, and a worker behind the
   * queue makes the leads. Its function and queue are its own construct's (lib/constructs/meta-lead-ads.ts).
   */
  readonly worker?: {
    readonly entry: string;
    /** Its function's path of construct ids under the stack, as `stack.functionPath` is the webhook's. */
    readonly functionPath: readonly string[];
    /**
     * The modules outside its folder that wire its asynchronous path, each for a reason of its own (its
     * construct: the queue, the worker, their grants; `npm start`'s and the bench's in-process queue): the
     * only code besides its handlers, the registry and its admin CLI verbs that imports from its folder
     * (test/sources/footprint.test.ts).
     */
    readonly wiring?: readonly string[];
    /**
     * The module, relative to the repository root, that runs it on a laptop (`npm start`, `npm run
     * invoke`): its default export is a LocalWorkerSource (shared/sources/local-worker.ts).
     */
    readonly local: string;
  };
  /**
   * Its line in `npm start`'s banner, for a source that is not one of the API key endpoints (those get
   * a `curl` each): a label, and how it is reached. `npm start` fills in `{seed.<field>}` (how many the
   * seed has of it: `{seed.googleForms}`) and `{graph}` (where Meta's leads are read from).
   */
  readonly banner?: { readonly label: string; readonly note: string };
  /**
   * Its own OpenAPI module, relative to the repository root (a literal, imported by the OpenAPI builder
   * only): it exports `openApiTag` and `openApiOperations()`, the operations of its route. Absent for the
   * API key endpoints, which scripts/openapi/build.ts documents together from their fields.
   */
  readonly openapi?: string;
  /**
   * Its own admin CLI verbs, for what is truly its own (Meta's pages; a kind of connection's verbs come
   * from its `connection`, scripts/admin/connections.ts): the module, relative to the
   * repository root, whose default export is their CommandModule (scripts/admin/command.ts), and the
   * module's name in the help's alphabetical order.
   */
  readonly adminCli?: { readonly module: string; readonly name: string };
  /**
   * Its own admin API routes (connecting its forms or numbers, CONTRACT.md section 9), under
   * `/admin/v1` beside the core ones of shared/routes.ts: shared/admin-routes.ts joins them for the
   * stack, the local server and OpenAPI. The admin function serves them through the source's admin
   * module (listed one line per source in shared/admin-sources.ts), which does each operation; its
   * `openapi` module's `openApiAdminOperations()` documents them.
   */
  readonly admin?: { readonly routes: readonly AdminRoute[] };
  /**
   * Its own member of a seed file's accounts (`metaPages`; a kind of connection's, `googleForms`, comes
   * from its `connection`, shared/sources/connection-seed.ts), and the module,
   * relative to the repository root, that reads and writes it: its default export is a `SeedMember`
   * (shared/sources/seed-member.ts), imported by the seed (scripts/local/seed.ts) only.
   */
  readonly seed?: { readonly member: string; readonly module: string };
  /** Sample API Gateway events of it in `events/`, for `npm run invoke`. */
  readonly sampleEvents: readonly string[];
  /**
   * What the deployed smoke check (`npm run smoke`, scripts/smoke.ts) sends it: a request it must refuse
   * without storing anything, and the answer that proves its route reaches its function. `{random}` in
   * the query or body is a new UUID each run.
   */
  readonly smoke?: SmokeProbe;
  /**
   * Files outside its folder that name it and may (test/sources/footprint.test.ts), each with why: what
   * could not move into its folder or come from its declaration (a deployed name, a stored attribute the
   * shared lead path reads, the Meta app two sources share, the pages for readers of every source).
   * Besides these, only its registry line, its handler files, its worker's `wiring`, events/, test/, the
   * README and its docs/sources/ page name it. A file listed here that no longer names it fails the test.
   */
  readonly namedOutside?: Readonly<Record<string, string>>;
}

/** A request a deployed source must refuse, and its answer (its status, and its message where it has one). */
export interface SmokeProbe {
  readonly check: string;
  readonly method: 'GET' | 'POST';
  readonly query?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly status: number;
  readonly message?: string;
}

/**
 * A platform's own id of what it delivers (Meta's leadgen id, Google's lead id, a provider's call id):
 * each delivery of one id is one lead or one rejection record (shared/domain/platform-leads.ts), and its
 * records carry it, each under an attribute of its own at the record's top level (its stored item, the
 * admin API's JSON), named here.
 */
export interface PlatformIdDeclaration {
  /** The attribute its rejection records carry the id under: `google_lead_id`, `meta_leadgen_id`, `call_id`. */
  readonly field: string;
  /** The prefix of the idempotency key the id is stored once under. */
  readonly idempotencyPrefix: string;
  /**
   * The attributes that, with the id, name one delivery, carried beside it on the record: a call id is
   * unique within its provider's calls alone (`provider`).
   */
  readonly qualifiedBy?: readonly string[];
  /** The word `admin rejections` shows before the id (`meta leadgen 1200...`); absent: its qualifiers alone (`call exotel c-1`). */
  readonly label?: string;
  /** What the admin API's OpenAPI document says of each of these attributes, by name, where it says anything. */
  readonly descriptions?: Readonly<Record<string, string>>;
}

/** A route's throttle as operator settings: API Gateway's steady rate and its burst above it. */
export interface RouteThrottleDeclaration {
  /** Requests per second let through before API Gateway answers 429 (from 1 to 10,000, lib/settings.ts). */
  readonly rateLimit: ThrottleSettingDeclaration;
  /** Requests absorbed above the rate: a whole number (from 1 to 5,000). */
  readonly burstLimit: ThrottleSettingDeclaration;
}

/**
 * One operator setting: its name (the stack's prop and CDK context key, `googleAdsThrottlingRateLimit`:
 * deployed names, so they never change) and its default. Every route throttle is checked against the
 * same bounds at synth, the stage default's (lib/settings.ts `routeThrottleBounds`).
 */
export interface ThrottleSettingDeclaration {
  readonly name: string;
  readonly default: number;
}

/**
 * One numeric setting of a source's function: its name (the stack's prop and CDK context key), the
 * environment variable its function reads it from, its default and its bounds (checked at synth).
 */
export interface FunctionSettingDeclaration {
  readonly name: string;
  readonly environment: string;
  readonly default: number;
  readonly min: number;
  readonly max: number;
  /** A whole number only; absent: a fraction is allowed. */
  readonly integer?: boolean;
}

/**
 * The key scope of a source whose key is limited to it alone (`authentication: 'scoped-api-key'`): the
 * name a key's endpoints hold to open it, and nothing else (`create-key --endpoints calls`; the key
 * lifecycle is given the registry's scopes, shared/domain/api-keys.ts `KeyRules`), and the query
 * parameter its key may travel in, for senders that cannot set headers (`x-api-key` wins when both are sent).
 */
export interface KeyScopeDeclaration {
  readonly name: string;
  readonly queryParameter?: string;
}
