/**
 * The four lead endpoints as data: what each accepts, how it tags the lead's source, and how it
 * answers. Everything else (middleware chain, envelope, domain) is shared.
 */
import type { LeadSource } from './domain/lead.ts';
import type { SubSourceClaim } from './domain/create-lead.ts';
import { portalLeadFields, socialLeadFields, websiteLeadFields, type LeadFieldSchemas } from './schemas/lead-fields.ts';
import type { UnknownFieldPolicy, ValidatedFields } from './schemas/validate.ts';
import type { EndpointName } from './routes.ts';

export interface LeadEndpoint {
  readonly name: EndpointName;
  readonly source: LeadSource;
  readonly fields: LeadFieldSchemas;
  readonly unknownFields: UnknownFieldPolicy;
  /** The sub source the lead claims, checked against the account's configuration. */
  readonly subSource: (fields: ValidatedFields) => SubSourceClaim | null;
  /** The social endpoint answers without the lead (spec, section 4). */
  readonly answersWithLead: boolean;
  /** Browser forms post here: CORS preflight and Access-Control-Allow-Origin. */
  readonly browserFacing: boolean;
}

export const websiteEndpoint: LeadEndpoint = {
  name: 'website',
  source: 'website',
  fields: websiteLeadFields,
  unknownFields: 'ignore',
  subSource: (fields) => ({ kind: 'website', name: fields.sub_source! }),
  answersWithLead: true,
  browserFacing: true,
};

const portal = (name: 'portala' | 'portalb'): LeadEndpoint => ({
  name,
  source: name,
  fields: portalLeadFields,
  unknownFields: 'reject',
  subSource: () => null,
  answersWithLead: true,
  browserFacing: false,
});

export const portalAEndpoint = portal('portala');
export const portalBEndpoint = portal('portalb');

export const socialEndpoint: LeadEndpoint = {
  name: 'social',
  source: 'social',
  fields: socialLeadFields,
  unknownFields: 'ignore',
  subSource: (fields) => ({ kind: 'social', name: fields.platform! }),
  answersWithLead: false,
  browserFacing: false,
};
