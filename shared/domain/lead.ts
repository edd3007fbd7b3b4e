/** The CRM's words for what this service reads and writes (CONTRACT.md sections 3 to 5). */
import type { DeclaredLeadSource } from '../sources/registry.ts';
import type { PortalName } from '../portals/names.ts';
import type { KeyChallenge } from './challenge.ts';
import type { RetentionChange } from './retention.ts';

/**
 * Where a lead came from (CONTRACT.md section 4): the contract's own words, stored on every lead and sent
 * to the CRM, one per declared source, derived from the registry (each descriptor's `leadSource`), so a
 * new source adds its word with its registry line. A type only: no bundle carries the registry.
 * test/unit/source-declarations.test.ts holds the words to the contract's list. The portals' words
 * (`99acres`, `magicbricks`, `housing`: CONTRACT.md section 17) are their registry's (shared/portals/registry.ts).
 */
export type LeadSource = DeclaredLeadSource['leadSource'] | PortalName;

/** What the account does with a lead whose mobile number its project already has. */
export type DuplicateSetting = 'ignore' | 'create' | 'merge';
export const duplicateSettings: readonly DuplicateSetting[] = ['ignore', 'create', 'merge'];

/** Social platforms a lead can come from; an account enables a subset as its social sub sources. */
export const socialPlatforms = ['fb', 'ig', 'wp'] as const;

export interface Project {
  readonly id: string;
  readonly name: string;
}

export interface Campaign {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
}

export type SocialPlatform = (typeof socialPlatforms)[number];

/** What an account is besides its projects: the settings the CRM puts with `PUT /accounts/{id}`. */
export interface AccountSettings {
  readonly name: string;
  readonly duplicateSetting: DuplicateSetting;
  readonly websiteSubSources: readonly string[];
  readonly socialSubSources: readonly SocialPlatform[];
  /** The account's quiet hours for the quiet-source watch (CONTRACT.md section 16): `HH:MM-HH:MM` or `none`; absent: the stack's. */
  readonly silenceQuietHours?: string;
  /** How long leads and rejection records are kept (CONTRACT.md section 18); a member left out keeps its stored value. */
  readonly retention?: RetentionChange;
}

/** An account's active configuration: retired projects and campaigns are not in it. */
export interface AccountConfig {
  readonly id: string;
  readonly name: string;
  readonly duplicateSetting: DuplicateSetting;
  readonly projects: ReadonlyMap<string, Project>;
  readonly campaigns: ReadonlyMap<string, Campaign>;
  /** Sub source names under the Website source; matched exactly, case-sensitive. */
  readonly websiteSubSources: ReadonlySet<string>;
  readonly socialSubSources: ReadonlySet<string>;
  /** The account's quiet hours (AccountSettings); absent: the stack's. */
  readonly silenceQuietHours?: string;
  /**
   * How long the account keeps leads and rejection records (CONTRACT.md section 18): as stored, both
   * members, when read from the table; in a seed file, only the members it sets. Absent: the defaults.
   */
  readonly retention?: RetentionChange;
}

/**
 * What an API key allows, read with the key in one item (CONTRACT.md sections 5 and 7). A key stored
 * before key ids existed has only `accountId` and `active`, and allows what it always did.
 */
export interface ApiKeyGrant {
  readonly accountId: string;
  readonly active: boolean;
  /** The key's public id (`key_...`); absent on keys stored before key ids existed. */
  readonly keyId?: string;
  /** The endpoints the key may post to; absent: all four lead endpoints (never a source with a key scope of its own, which takes only a key limited to it). */
  readonly endpoints?: readonly KeyEndpoint[];
  /** Browser origins, normalised (`https://shop.example`); present only on a browser key. */
  readonly origins?: readonly string[];
  /** ISO time from which the key answers 401. */
  readonly expiresAt?: string;
  /** ISO time at which a rotated key's grace period ends, and it answers 401. */
  readonly graceEndsAt?: string;
  /** A browser key's challenge (CONTRACT.md section 11): its provider and sealed secret. */
  readonly captcha?: KeyChallenge;
  /** Limited to dry runs (CONTRACT.md section 19): a request without `x-dry-run: true` answers 403. */
  readonly dryRunsOnly?: true;
}

/** The four lead endpoints a key can be limited to (CONTRACT.md sections 1 and 7), under their lead sources' names. */
export const leadKeyEndpoints = ['website', 'portala', 'portalb', 'social'] as const;
export type LeadKeyEndpoint = (typeof leadKeyEndpoints)[number];

/**
 * What a key's endpoints name: a lead endpoint (leadKeyEndpoints), or the key scope of a source whose
 * key is limited to it alone (the call webhook's `calls`, CONTRACT.md section 13). The scopes are the
 * sources' own (their descriptors'): the key lifecycle is given them by its caller (api-keys.ts `keyOptions`).
 */
export type KeyEndpoint = LeadKeyEndpoint | (string & {});

/** The stored lead, exactly as answered in `data` and listed by the admin CLI (CONTRACT.md section 4). */
/**
 * The consent a sender saw given (CONTRACT.md section 18): the notice shown, when, and for what; kept
 * on the lead unchanged and sent whole in Lead Created.
 */
export interface Consent {
  readonly notice: string;
  readonly given_at: string;
  readonly purposes?: readonly string[];
}

/** A field's value as a lead keeps it: text or a number, or section 18's consent object. */
export type LeadFieldValue = string | number | Consent;

export interface LeadRecord {
  readonly id: string;
  readonly name: string;
  readonly mobile_number: string;
  readonly email?: string;
  readonly alternate_number?: string;
  readonly projectID: string;
  readonly campaignID: string;
  readonly source: LeadSource;
  readonly sub_source: string | null;
  readonly is_repeated: boolean;
  readonly parent_lead_id: string | null;
  readonly created_at: string;
  /** Every optional endpoint field that was given, under its request name. */
  readonly [endpointField: string]: LeadFieldValue | boolean | null | undefined;
}

/**
 * The sub source a lead names: a Website sub source name, or a social platform, each checked against
 * the account's configuration; or one its source sets itself (Google's `lead_form`), never checked.
 */
export interface SubSourceClaim {
  readonly kind: 'website' | 'social' | 'of_source';
  readonly name: string;
}

/** A validated lead as its source received it. */
export interface LeadSubmission {
  readonly source: LeadSource;
  readonly subSource: SubSourceClaim | null;
  readonly name: string;
  readonly mobile_number: string;
  readonly email?: string;
  readonly alternate_number?: string;
  readonly projectID: string;
  readonly campaignID: string;
  /** The endpoint's own optional fields that were given (notes, utm_*, platform, ...). */
  readonly details: Readonly<Record<string, LeadFieldValue>>;
}

/**
 * A submission as a quarantine record keeps it (CONTRACT.md section 11): the endpoint it came to
 * (`source`) and every field the request gave, under the request's name, side by side, as the lead
 * record lists them (section 4): the Website sub source as `sub_source`, `profession`, `notes` or a
 * social lead's `platform` beside `name` and `mobile_number`. An operator or a CRM reading a field by
 * its request name finds it there, whichever field it is.
 */
export interface QuarantinedSubmission {
  readonly source: LeadSource;
  readonly name: string;
  readonly mobile_number: string;
  readonly email?: string;
  readonly alternate_number?: string;
  readonly projectID: string;
  readonly campaignID: string;
  readonly sub_source?: string;
  /** The endpoint's other fields that were given (notes, profession, location, utm_*, platform, ...). */
  readonly [field: string]: LeadFieldValue | undefined;
}

/**
 * The shapes quarantine records were stored in before, read and released as they are until they expire
 * (no migration): the endpoint's other fields nested under `details`; before that, the domain's claim
 * as `subSource` instead of `sub_source`.
 */
export interface LegacyQuarantinedSubmission extends Omit<LeadSubmission, 'subSource'> {
  readonly sub_source?: string;
  readonly subSource?: SubSourceClaim | null;
}

/** A person as an access or erasure request names them (CONTRACT.md section 12). */
export type PersonHandle =
  | { readonly kind: 'mobile'; readonly value: string }
  | { readonly kind: 'email'; readonly value: string }
  /** A platform's own id of someone whose number it withholds (a WhatsApp username's user id): only ever hashed, never asked for by an erasure. */
  | { readonly kind: 'platform_user'; readonly value: string };

/** The contact details a submission carried, as section 2 normalises them (mobiles 10 digits, e-mail lower-cased). */
export interface PersonIdentifiers {
  readonly mobile_number?: string;
  readonly alternate_number?: string;
  readonly email?: string;
}
