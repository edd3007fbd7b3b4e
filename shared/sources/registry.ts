/**
 * Every lead source, as data (descriptor.ts): the one list the CDK stack, `npm start`, `npm run
 * invoke`, the banner, OpenAPI, monitoring, the admin routes (shared/admin-routes.ts), the admin CLI and
 * the seed loop over. Adding a source adds its descriptor here: one import and one entry
 * (docs/adding-a-lead-source.md). Only the stack and the local tools import this module; a handler
 * imports its own source's wire names (wire-names.ts), so no bundle carries another source.
 */
import { callsSource } from '../calls/source.ts';
import { googleAdsSource } from '../google/source.ts';
import { metaSource } from '../meta/source.ts';
import { whatsappSource } from '../whatsapp/source.ts';
import { portalDescriptors } from '../portals/names.ts';
import type { EndpointName } from '../routes.ts';
import type { LeadSourceDescriptor } from './descriptor.ts';
import { portalaSource, portalbSource, socialSource, websiteSource } from './lead-endpoints.ts';

const declaredSources = [websiteSource, portalaSource, portalbSource, socialSource, metaSource, googleAdsSource, callsSource, whatsappSource] as const;

export const leadSources: readonly LeadSourceDescriptor[] = declaredSources;

/**
 * The declared sources with their literal types, for what is typed from their names: the stack's
 * throttle settings (lib/settings.ts `SourceThrottleSettings`).
 */
export type DeclaredLeadSource = (typeof declaredSources)[number];

/** The kinds of connection the declared sources' deliveries name (`google_form`, `call_number`): shared/domain/ports/connections.ts ConnectionKind. */
export type DeclaredConnectionKind = Extract<DeclaredLeadSource, { readonly connection: unknown }>['connection']['kind'];

/** Each declared kind of connection, in the registry's order, with the source that declares it. */
export const connectionSources = leadSources.filter((source): source is LeadSourceDescriptor & Required<Pick<LeadSourceDescriptor, 'connection'>> => source.connection !== undefined);

/**
 * Each source's member of a seed file's accounts, in the registry's order: its own (its descriptor's
 * `seed`: `metaPages`), or its kind of connection's (`googleForms`, `callNumbers`).
 */
export const seedMembers: readonly { readonly source: LeadSourceDescriptor; readonly member: string }[] = leadSources.flatMap((source) =>
  source.seed ? [{ source, member: source.seed.member }] : source.connection ? [{ source, member: source.connection.seed.member }] : [],
);

/** The sources whose function makes the lead in the request (all but the asynchronous ones, whose worker does). */
export const requestSources = leadSources.filter((source) => !source.worker);

/** The sources whose deliveries carry an API key: the four lead endpoints of CONTRACT.md section 1. */
export const apiKeySources = leadSources.filter((source) => source.authentication === 'api-key');

/** The sources whose deliveries carry a platform's own id (Meta, Google Ads, calls), in the registry's order. */
export const platformIdSources = leadSources.filter((source): source is LeadSourceDescriptor & Required<Pick<LeadSourceDescriptor, 'platformId'>> => source.platformId !== undefined);

/**
 * The attributes a rejection record may carry a platform's ids under, each source's qualifiers before its
 * id (`provider`, `call_id`), with what the admin API's OpenAPI document says of each.
 */
export const platformIdAttributes: readonly { readonly name: string; readonly description?: string }[] = platformIdSources.flatMap(({ platformId }) =>
  [...(platformId.qualifiedBy ?? []), platformId.field].map((name) => ({ name, ...(platformId.descriptions?.[name] !== undefined && { description: platformId.descriptions[name] }) })),
);

/** The sources whose key is limited to them alone (`scoped-api-key`: the call webhook), with their key scope. */
export const keyScopedSources = leadSources.filter((source): source is LeadSourceDescriptor & Required<Pick<LeadSourceDescriptor, 'keyScope'>> => source.keyScope !== undefined);

/** Their scopes (`calls`): what the key lifecycle is given by those that may read the registry (shared/domain/api-keys.ts KeyRules). */
export const sourceKeyScopes: readonly string[] = keyScopedSources.map(({ keyScope }) => keyScope.name);

/** Every name a key's endpoints may hold: the four lead endpoints (shared/domain/lead.ts leadKeyEndpoints), then each source's key scope. */
export const keyEndpointNames: readonly string[] = [...apiKeySources.map((source) => source.name), ...sourceKeyScopes];

/**
 * By lead source (`social`, `google_ads`, `call`), the lead attributes that name a lead's connection, in
 * the registry's order (the quiet-source watch's channels, CONTRACT.md section 16): what the stack hands
 * the watch's function and `npm start` its stream reader.
 */
export const channelConnectionFields: Readonly<Record<string, readonly string[]>> = leadSources.reduce<Record<string, string[]>>(
  (fields, source) => {
    if (source.channel) (fields[source.leadSource] ??= []).push(source.channel.connectionField);
    return fields;
  },
  // A pulled portal's leads came through its login (CONTRACT.md section 17: the channel's connection id is the login).
  Object.fromEntries(portalDescriptors.map((portal) => [portal.leadSource, ['portal_login']])),
);

/** The source of a name (`website`, `google_ads`, `meta`). */
export const sourceNamed = (name: string): LeadSourceDescriptor | undefined => leadSources.find((source) => source.name === name);

// ---- The routes as the tools and tests knew them before the registry (views of it) ----------------------

export type { EndpointName } from '../routes.ts';

/** An API key endpoint's route (the four lead endpoints). */
export interface LeadRoute {
  readonly endpoint: EndpointName;
  readonly path: string;
  /** The handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** Browser forms post to the website endpoint: it answers CORS preflight (OPTIONS) itself. */
  readonly browserFacing: boolean;
}

export const leadRoutes: readonly LeadRoute[] = apiKeySources.map((source) => ({
  endpoint: source.name as EndpointName,
  path: source.route.path,
  entry: source.entry,
  browserFacing: source.browserFacing,
}));
