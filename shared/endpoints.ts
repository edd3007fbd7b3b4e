/**
 * The four lead endpoints (CONTRACT.md sections 1 to 7), each described once: what its function reads
 * (its name, its leads' source, what it accepts, how it tags the lead's sub source, its answer, whether
 * browsers post to it), declared as a source of the one intake (an API key allowed on the endpoint, a
 * JSON body: DeclaredAs<'api-key', 'json'>). Its descriptor (sources/lead-endpoints.ts) spreads it and
 * adds what only the stack and the tools read (route, throttle, construct ids), as a platform source's
 * wire-names.ts is spread by its source.ts. Everything else is shared (shared/http/lead-handler.ts).
 */
import type { LeadSource, SubSourceClaim } from './domain/lead.ts';
import type { DeclaredAs } from './intake/steps.ts';
import type { IntakeAnswer } from './intake/types.ts';
import type { SubmissionTagging } from './domain/submissions.ts';
import { portalLeadFields, socialLeadFields, websiteLeadFields, type LeadFieldSchemas } from './schemas/lead-fields.ts';
import type { UnknownFieldPolicy, ValidatedFields } from './schemas/validate.ts';
import type { EndpointName } from './routes.ts';

/**
 * An endpoint as declared: its leads' source as text, so that the lead source union (derived from the
 * registry, which spreads these) is not needed to declare it.
 */
interface LeadEndpointDeclaration {
  readonly name: EndpointName;
  /** The `source` of its leads (CONTRACT.md section 4). */
  readonly leadSource: string;
  readonly authentication: { readonly kind: 'api-key'; readonly endpoint: EndpointName };
  readonly bodyFormat: 'json';
  readonly fields: LeadFieldSchemas;
  readonly unknownFields: UnknownFieldPolicy;
  /** The sub source the lead claims, checked against the account's configuration. */
  readonly subSource: (fields: ValidatedFields) => SubSourceClaim | null;
  /** Its answer to a lead created: the social endpoint answers without the lead (spec, section 4). */
  readonly acceptance: IntakeAnswer;
  /** Browser forms post here: CORS preflight and Access-Control-Allow-Origin. */
  readonly browserFacing: boolean;
}

/** An endpoint as its function reads it. */
export type LeadEndpoint = LeadEndpointDeclaration & DeclaredAs<'api-key', 'json'> & { readonly leadSource: LeadSource };

const created = { status: 200, message: 'Lead created successfully', withLead: true } as const;

export const websiteEndpoint = {
  name: 'website',
  leadSource: 'website',
  authentication: { kind: 'api-key', endpoint: 'website' },
  bodyFormat: 'json',
  fields: websiteLeadFields,
  unknownFields: 'ignore',
  subSource: (fields: ValidatedFields): SubSourceClaim => ({ kind: 'website', name: fields.sub_source! }),
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
  subSource: (fields: ValidatedFields): SubSourceClaim => ({ kind: 'social', name: fields.platform! }),
  acceptance: { status: 200, message: 'Lead created successfully', withLead: false },
  browserFacing: false,
} as const satisfies LeadEndpointDeclaration;

/** How an endpoint's leads are tagged (submissionOf): its leads' source and its sub source. */
export const taggingOf = (endpoint: Pick<LeadEndpoint, 'leadSource' | 'subSource'>): SubmissionTagging => ({ source: endpoint.leadSource, subSource: endpoint.subSource });
