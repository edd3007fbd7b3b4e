/**
 * A kind of connection declared as data (issue 33): what a source's deliveries name (a Google Ads form,
 * a call number, a WhatsApp number), connected by an account to one of its projects and campaigns. A
 * source declares its kind in its own folder (`connections.ts`, its key shape in `wire-names.ts` for its
 * functions), and its descriptor names it (`connection`); one lifecycle (shared/domain/connection-admin.ts)
 * connects, moves, lists, removes, rotates and seeds every kind from this declaration, and the admin API's
 * routes, the admin CLI's verbs, the seed's member and their OpenAPI are made of it. Nothing here is code:
 * a new kind is one more declaration, and no module outside its folder names it.
 *
 * The stored names (prefixes, id attribute) are those deployed: declaring a kind changes no stored item.
 */

/**
 * Where a kind's connections are kept, by whom they are unique:
 * - `platform`: the platform's id is one connection whatever account connects it (a Google form id):
 *   its item is keyed by the id alone, and the account's listing is a second item.
 * - `account`: each account connects the id on its own (a call number: two accounts may both list one
 *   number, and neither may block the other): its item is keyed under the account, and is its own listing.
 */
export type ConnectionShape = PlatformWideShape | AccountScopedShape;

interface ShapeOfEveryKind {
  /** The attribute that holds the id in its items. */
  readonly idAttribute: string;
}

export interface PlatformWideShape extends ShapeOfEveryKind {
  readonly scope: 'platform';
  /** The connection's item: partition key `<partitionPrefix><id>`, sort key `itemSortKey`. */
  readonly partitionPrefix: string;
  readonly itemSortKey: string;
  /** The account's listing: partition key `<listingPrefix><account id>`, sort key `<listingSortPrefix><id>`. */
  readonly listingPrefix: string;
  readonly listingSortPrefix: string;
}

export interface AccountScopedShape extends ShapeOfEveryKind {
  readonly scope: 'account';
  /** The connection's item, the account's listing too: partition key `<partitionPrefix><account id>`, sort key `<sortPrefix><id>`. */
  readonly partitionPrefix: string;
  readonly sortPrefix: string;
}

/**
 * What a kind's functions need of it at run time (its source's wire-names.ts): its name in the store and
 * its key shape. A lead function's bundle carries this much of its own kind, never another's.
 */
export interface ConnectionKeyDeclaration {
  /** The kind's name (`google_form`, `call_number`): a connection's `kind`, a guard's, a ConnectionChangedError's. */
  readonly kind: string;
  readonly shape: ConnectionShape;
  /** How an id as typed or delivered becomes the id stored (a delivery's form id, a called number). */
  readonly id: ConnectionIdRule;
}

/**
 * How an id as typed (a CLI flag, a path parameter, a seed's field) becomes the id stored, or is refused:
 * - `pattern`: kept as is when it matches, whole (Google's form ids: `^(0|[1-9]\d{0,19})$`).
 * - `last-digits`: every digit (any script's, read as ASCII), the last `digits` of them; fewer is refused
 *   (a call number's last 10: `+91 80 4718 1234` is `8047181234`).
 */
export type ConnectionIdRule = { readonly rule: 'pattern'; readonly pattern: string } | { readonly rule: 'last-digits'; readonly digits: number };

/** A kind whose deliveries carry a key of their own (Google's `google_key`): made on connect, shown once, rotated on demand. */
export interface ConnectionKeyIssue {
  /** What a new key starts with (`gk_`), before its random bits in base64url. */
  readonly prefix: string;
  /** How many random bytes (the contract asks for at least 128 bits). */
  readonly randomBytes: number;
}

/** An error's words: the admin API's status, code and message (a refusal), or the CLI's message (exit 1 or 2). */
export interface RefusalWords {
  readonly status: 400 | 404 | 409;
  readonly code: string;
  readonly message: string;
}

/**
 * Everything a person reads of a kind, in one place. Templates name what they show in braces: `{id}`
 * (the id as stored, or as typed where it was refused), `{account}`, `{project}`, `{campaign}`, `{target}`
 * (`project` or `campaign`), `{count}`, `{value}` (what was typed, as JSON).
 */
export interface ConnectionWords {
  /** The admin API's path segment and the seed's member: `google-forms` under `/admin/v1/accounts/{accountId}/`. */
  readonly pathSegment: string;
  /** The id's path parameter (`formId`, `number`), also the field an invalid one is reported under (400). */
  readonly pathParameter: string;
  /** What a 400 says of an invalid id on connect: `must have at least 10 digits`. */
  readonly invalidIdProblem: string;
  /** The JSON member of its id in the admin API and `--json` (`form_id`, `number`, `phone_number_id`), and the table's column. */
  readonly idMember: string;
  /** The admin API's operation names (routes, OpenAPI): connect, list, remove, and rotate for a keyed kind. */
  readonly operations: { readonly connect: string; readonly list: string; readonly remove: string; readonly rotate?: string };
  /** The admin API's refusals: an id not connected (404), and (platform-wide kinds) one connected to another account (409). */
  readonly notFound: RefusalWords;
  readonly conflict?: RefusalWords;
  /** The CLI's and seed's messages (a KeyAdminError's, exit 1; exit 2 for `invalidId`). */
  readonly messages: {
    /** The CLI flag an invalid id is reported under (`form-id`), and its message: `a call number has at least 10 digits, not {value}`. */
    readonly invalidIdFlag: string;
    readonly invalidId: string;
    /** `Form {id} is not connected`. */
    readonly notConnected: string;
    /** `Form {id} is connected to another account` (platform-wide kinds). */
    readonly ofAnotherAccount?: string;
    /** The project or campaign is not an active one of the account. */
    readonly projectNotFound: string;
    readonly campaignNotFound: string;
  };
}

export interface ConnectionCliWords {
  /** The help's module name (`googleForms`), in its alphabetical order. */
  readonly module: string;
  /** The flag of the id (`form-id`, `number`, `phone-number-id`) and its usage placeholder (`FORM`, `N`, `PNID`). */
  readonly idFlag: string;
  readonly idPlaceholder: string;
  readonly connect: CliVerbWords & {
    /** Printed (or the JSON) when new: `Call number {id} is connected to account {account} ({where}).` */
    readonly created: string;
    /** When moved: `Calls to {id} now become leads of {where}.` */
    readonly moved: string;
    /**
     * On standard error after a new connection (a keyless kind), or after the key (a keyed kind). `{route}`
     * is the source's route path, its parameters filled in from `routeParameters`.
     */
    readonly hint?: string;
    readonly routeParameters?: Readonly<Record<string, string>>;
  };
  readonly list: CliVerbWords & { readonly empty: string; readonly counted: string };
  /** `remove-...`; `byAccount`: it takes `--account` (call and WhatsApp numbers), else the id alone (Google's forms). */
  readonly remove: CliVerbWords & { readonly byAccount: boolean; readonly removed: string };
  /** A keyed kind's `rotate-...-key`, by its id alone. */
  readonly rotate?: CliVerbWords & { readonly rotated: string };
  /** A keyed kind's advice after a new key: `{note} The key is shown only this once: ...`. */
  readonly keyAdvice?: string;
}

export interface CliVerbWords {
  readonly verb: string;
  readonly summary: string;
}

export interface ConnectionSeedWords {
  /** The member of a seed file's account (`googleForms`, `callNumbers`, `whatsappNumbers`). */
  readonly member: string;
  /** Its entries' field of the id (`formId`, `number`, `phoneNumberId`), and of the key, for a keyed kind (`key`). */
  readonly idField: string;
  readonly keyField?: string;
  /** What the seed says of an entry's invalid id: `must be a Google Ads form id (digits, as a string)`. */
  readonly invalidId: string;
  /** An id twice in one file: `Google form {value} appears more than once (a form belongs to one account)`; `{at}` the account. */
  readonly repeated: string;
}

export interface ConnectionOpenApiWords {
  /** Schema names: the connect body, what connect answers, what list answers (one name when the same). */
  readonly bodySchema: string;
  readonly connectedSchema: string;
  readonly listedSchema: string;
  /** The schemas themselves, as OpenAPI JSON (the words of each member). */
  readonly schemas: Readonly<Record<string, unknown>>;
  /** Each operation's summary, description and answers' descriptions, by the operation's role. */
  readonly connect: { readonly summary: string; readonly description: string; readonly created: string; readonly changed: string };
  readonly list: { readonly summary: string; readonly description: string; readonly answer: string };
  readonly remove: { readonly summary: string; readonly description: string; readonly answer: string };
  readonly rotate?: { readonly summary: string; readonly description: string; readonly answer: string };
}

/**
 * What the lifecycle and the admin function need of a kind (its source's connections.ts): its key, its id
 * rule, its key if it carries one, how it behaves where kinds differ, and the admin API's and the
 * lifecycle's words. The lifecycle branches on these, never on a kind's name.
 */
export interface ConnectionLifecycleDeclaration extends ConnectionKeyDeclaration {
  /** Present for a kind whose deliveries carry its own key (made on connect, shown once, rotated). */
  readonly key?: ConnectionKeyIssue;
  /**
   * Connecting: how often a connect reads the connection again when another write changed it between
   * its read and its write, and what it answers when every attempt lost: a platform-wide kind's loser
   * found the id taken by another account (`another-account`), an account's own kind a contended write
   * (`unavailable`: 503, retry after a second).
   */
  readonly connect: { readonly attempts: number; readonly exhausted: 'another-account' | 'unavailable' };
  /**
   * What connect answers (201 new, 200 changed): the connection `issued` (id, account, project, campaign,
   * and a new key when made; Google's forms) or as `listed` (id, project, campaign, connected at).
   */
  readonly connectAnswer: 'issued' | 'listed';
  readonly words: ConnectionWords;
}

/**
 * A kind of connection, whole: its lifecycle's declaration and the words of the tools (the admin CLI, the
 * seed, the OpenAPI document), declared apart in its folder so the admin function's bundle carries none
 * of them. Its source's descriptor names it (`connection`).
 */
export interface ConnectionKindDeclaration extends ConnectionLifecycleDeclaration, ConnectionToolWords {}

/** The words of the tools, for a kind. */
export interface ConnectionToolWords {
  /** The admin CLI's verbs, their flags and their output. */
  readonly cli: ConnectionCliWords;
  /** The seed's member of an account (`googleForms`) and its entries' fields. */
  readonly seed: ConnectionSeedWords;
  /** The admin API's OpenAPI words (schemas, summaries, descriptions): scripts/openapi/admin.ts. */
  readonly openapi: ConnectionOpenApiWords;
}

/**
 * The admin API's refusals of a platform-wide kind (one connection, one account), by its kind and the
 * noun a connection of it is: an id not connected (404), one connected to another account (409).
 */
export const platformWideRefusals = <Kind extends string, Noun extends string>(kind: Kind, noun: Noun) =>
  ({
    notFound: { status: 404, code: `${kind}_not_found`, message: `${noun} not found` },
    conflict: { status: 409, code: `${kind}_of_another_account`, message: `${noun} is connected to another account` },
  }) as const;

/**
 * The CLI's and seed's messages every kind words alike, by the noun a connection of the kind is
 * (`Form`, `WhatsApp number`): one not connected, one of another account (platform-wide kinds), and a
 * project or campaign that is not an active one of the account.
 */
export const connectionMessages = <Noun extends string>(noun: Noun) =>
  ({
    notConnected: `${noun} {id} is not connected`,
    ofAnotherAccount: `${noun} {id} is connected to another account`,
    projectNotFound: 'project {value} is not an active project of account {account}',
    campaignNotFound: 'campaign {value} is not an active campaign of account {account} under that project',
  }) as const;

/**
 * A connection without a key as the admin API answers it (OpenAPI JSON, its kind's `openapi.schemas`):
 * its id, where its deliveries' leads go, and since when.
 */
export const connectionSchema = (description: string, idMember: string, idPattern: string) => ({
  type: 'object',
  description,
  required: [idMember, 'project_id', 'campaign_id', 'connected_at'],
  properties: { [idMember]: { type: 'string', pattern: idPattern }, project_id: { type: 'string' }, campaign_id: { type: 'string' }, connected_at: { type: 'string' } },
});
