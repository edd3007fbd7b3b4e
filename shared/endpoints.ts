/**
 * The four lead endpoints (CONTRACT.md sections 1 to 7), each described once: what its function reads
 * (its name, its leads' source, what it accepts, how it tags the lead's sub source, its answer, whether
 * browsers post to it), declared as a source of the one intake (an API key allowed on the endpoint, a
 * JSON body: DeclaredAs<'api-key', 'json'>). Its descriptor (sources/lead-endpoints.ts) spreads it and
 * adds what only the stack and the tools read (route, throttle, construct ids), as a platform source's
 * wire-names.ts is spread by its source.ts. Everything else is shared (shared/http/lead-handler.ts).
 */
import { portalLeadFields, socialLeadFields, websiteLeadFields, type LeadFieldSchemas } from './schemas/lead-fields.ts';
import { textOf, type UnknownFieldPolicy, type ValidatedFields } from './schemas/validate.ts';
import type { EndpointName } from './routes.ts';

/**
 * The sub source an endpoint's lead claims (the domain's SubSourceClaim), written here by its shape: this
 * module is data the registry spreads, so it imports nothing of the domain, whose lead source union is
 * derived from the registry (no import circle).
 */
interface EndpointSubSourceClaim {
  readonly kind: 'website' | 'social';
  readonly name: string;
}

/**
 * An endpoint as declared: its leads' source as text, so that the lead source union (derived from the
 * registry, which spreads these) is not needed to declare it.
 */
export interface LeadEndpointDeclaration {
  readonly name: EndpointName;
  /** The `source` of its leads (CONTRACT.md section 4). */
  readonly leadSource: string;
  readonly authentication: { readonly kind: 'api-key'; readonly endpoint: EndpointName };
  readonly bodyFormat: 'json';
  readonly fields: LeadFieldSchemas;
  readonly unknownFields: UnknownFieldPolicy;
  /** The sub source the lead claims, checked against the account's configuration. */
  readonly subSource: (fields: ValidatedFields) => EndpointSubSourceClaim | null;
  /** Its answer to a lead created: the social endpoint answers without the lead (spec, section 4). */
  readonly acceptance: { readonly status: 200; readonly message: string; readonly withLead: boolean };
  /** Browser forms post here: CORS preflight and Access-Control-Allow-Origin. */
  readonly browserFacing: boolean;
}


const created = { status: 200, message: 'Lead created successfully', withLead: true } as const;

export const websiteEndpoint = {
  name: 'website',
  leadSource: 'website',
  authentication: { kind: 'api-key', endpoint: 'website' },
  bodyFormat: 'json',
  fields: websiteLeadFields,
  unknownFields: 'ignore',
  subSource: (fields: ValidatedFields): EndpointSubSourceClaim => ({ kind: 'website', name: textOf(fields, 'sub_source')! }),
  acceptance: created,
  browserFacing: true,
} as const satisfies LeadEndpointDeclaration;

const portal = <Name extends 'portala' | 'portalb'>(name: Name) =>
  ({
    name,
    leadSource: name,
    authentication: { kind: 'api-key', endpoint: name },
    bodyFormat: 'json',
    fields: portalLeadFields,
    unknownFields: 'reject',
    subSource: () => null,
    acceptance: created,
    browserFacing: false,
  }) as const satisfies LeadEndpointDeclaration;

// Pure: a portal's function bundles its own endpoint only.
export const portalAEndpoint = /* @__PURE__ */ portal('portala');
export const portalBEndpoint = /* @__PURE__ */ portal('portalb');

export const socialEndpoint = {
  name: 'social',
  leadSource: 'social',
  authentication: { kind: 'api-key', endpoint: 'social' },
  bodyFormat: 'json',
  fields: socialLeadFields,
  unknownFields: 'ignore',
  subSource: (fields: ValidatedFields): EndpointSubSourceClaim => ({ kind: 'social', name: textOf(fields, 'platform')! }),
  acceptance: { status: 200, message: 'Lead created successfully', withLead: false },
  browserFacing: false,
} as const satisfies LeadEndpointDeclaration;
