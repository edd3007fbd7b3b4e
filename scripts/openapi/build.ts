/**
 * The OpenAPI 3.1 document of the four lead endpoints, built from what the handlers themselves use:
 * the route table (shared/routes.ts), each endpoint's valibot field schemas (shared/endpoints.ts,
 * converted with @valibot/to-json-schema), the refusals of shared/domain/errors.ts and the envelope
 * of shared/http/envelope.ts. Examples are run through the real field validator, so the success and
 * field-validation examples are what the service answers.
 *
 * `npm run openapi` writes it to docs/openapi.json; test/openapi checks the committed file is current.
 * Pure and deterministic: the same code gives the same document, byte for byte.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import {
  IdempotencyKeyReusedError,
  InvalidIdempotencyKeyError,
  ApiKeyMissingError,
  BodyNotAnObjectError,
  CampaignNotFoundError,
  ClientNotFoundError,
  DryRunNotAllowedError,
  FieldValidationError,
  InvalidApiCredentialsError,
  KeyNotAllowedOnEndpointError,
  LeadAlreadyExistsError,
  OriginNotAllowedError,
  MalformedJsonBodyError,
  PayloadTooLargeError,
  ProjectNotFoundError,
  ServiceUnavailableError,
  SubSourceNotFoundError,
  UnsupportedContentTypeError,
  type LeadIntakeError,
} from '../../shared/domain/errors.ts';
import { socialPlatforms } from '../../shared/domain/lead.ts';
import { portalAEndpoint, portalBEndpoint, socialEndpoint, websiteEndpoint } from '../../shared/endpoints.ts';
import { taggingOf } from '../../shared/domain/submissions.ts';
import type { LeadEndpoint } from '../../shared/http/lead-handler.ts';
import { LEAD_CREATED, LEAD_WOULD_BE_CREATED } from '../../shared/http/envelope.ts';
import { MAX_BODY_BYTES } from '../../shared/http/lead-handler.ts';
import { submissionOf } from '../../shared/domain/submissions.ts';
import { HONEYPOT_FIELD } from '../../shared/http/middleware/honeypot.ts';
import { leadRecord } from '../../shared/domain/create-lead.ts';
import { consentMembers, numericTextFields } from '../../shared/schemas/lead-fields.ts';
import { leadFieldValidator } from '../../shared/domain/field-validation.ts';
import type { ValidatedFields } from '../../shared/schemas/validate.ts';
import { type EndpointName } from '../../shared/routes.ts';
import { leadRoutes, leadSources, type LeadRoute } from '../../shared/sources/registry.ts';
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

import { adminPaths, adminSchemas, adminTag, sigv4Scheme } from './admin.ts';

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/** A source's own OpenAPI module (its descriptor's `openapi`): its tag and its route's operations. */
interface SourceDocumentation {
  readonly openApiTag: JsonObject;
  readonly openApiOperations: () => JsonObject;
  /** Security schemes of its own that its operations name (the call webhook's key in the query). */
  readonly openApiSecuritySchemes?: JsonObject;
}

/** Every declared source that documents itself, in the registry's order: the webhooks (Meta, Google Ads, ...). */
const documentedSources: readonly { readonly source: LeadSourceDescriptor; readonly docs: SourceDocumentation }[] = await Promise.all(
  leadSources
    .filter((source) => source.openapi !== undefined)
    .map(async (source) => ({ source, docs: (await import(path.join(projectRoot, source.openapi!))) as SourceDocumentation })),
);
/** Where `npm run openapi` writes the document; `npm start` serves it at /docs/openapi.json. */
export const OPENAPI_FILE = path.join(projectRoot, 'docs', 'openapi.json');

/** The document as committed: two-space indentation and a final newline. */
export const serialiseOpenApiDocument = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;

export const leadEndpoints: Readonly<Record<EndpointName, LeadEndpoint>> = {
  website: websiteEndpoint,
  portala: portalAEndpoint,
  portalb: portalBEndpoint,
  social: socialEndpoint,
};

// ---------------------------------------------------------------------------------------------------
// Additions beyond the contract (retry-safe submissions and dry runs), with the service's own strings.

export const IDEMPOTENCY_KEY_REUSED = new IdempotencyKeyReusedError().message;
export const INVALID_IDEMPOTENCY_KEY = new InvalidIdempotencyKeyError().message;
export { LEAD_WOULD_BE_CREATED };

// ---------------------------------------------------------------------------------------------------
// What the contract says in words about each field: rules a valibot `check` or `transform` holds cannot
// be expressed in JSON Schema, and the build refuses a field with such a rule and no description here.

const MOBILE_RULES =
  'Allowed characters: digits, space, `+`, `-`, `(`, `)`, `.`. After removing everything but digits there must be 10 to 15 ' +
  'digits; the last 10 are the number, and its first digit must be 6, 7, 8 or 9. Country code and separators are stripped: ' +
  '`+91 98765 43210`, `0091-98765-43210`, `09876543210` and `9876543210` are all stored as `9876543210`. ' +
  'May also be sent as a JSON non-negative integer (read as its decimal digits; decimals, negatives and exponents are refused).';

const fieldDescriptions: Readonly<Record<string, string>> = {
  name: 'Lead full name.',
  mobile_number: `Indian mobile number of the lead. ${MOBILE_RULES} Leads with the same normalised number in the same project are duplicates.`,
  email: 'Lead e-mail address.',
  alternate_number: `Alternate mobile number, same rules as \`mobile_number\`; after normalising it must differ from \`mobile_number\`. ${MOBILE_RULES}`,
  projectID:
    "A project of the key's account (another account's ids are not found: 422 `Project not found`). May be sent as a JSON non-negative integer, read as its digits.",
  campaignID:
    'A campaign of the project given in `projectID` (a campaign of another project or account answers 422 `Campaign not found`). May be sent as a JSON non-negative integer, read as its digits.',
  sub_source:
    'Sub source name. It must exactly (case-sensitive) match a sub source configured in the CRM under the Website source, else 422 `Sub source not found`. Use a unique value per website or landing page.',
  profession: 'Profession or occupation.',
  location: 'City or location.',
  notes: 'Enquiry details or message (for example configuration preference or enquiry text).',
  utm_id: 'UTM ID from the page URL.',
  utm_campaign: 'UTM campaign parameter.',
  utm_source: 'UTM source parameter.',
  utm_medium: 'UTM medium parameter.',
  utm_term: 'UTM term parameter.',
  gclid: 'Search-ad click ID from the page URL.',
  fbclid: 'Social-ad click ID from the page URL.',
  visitor_ip: 'Visitor IP address: a valid IPv4 or IPv6 address (IPv4-mapped IPv6 such as `::ffff:203.0.113.7` included).',
  platform:
    `Lead source platform: \`${socialPlatforms.join('`, `')}\` (exact lower case). Any non-empty text passes field validation; a value that is not one of ` +
    "the account's social sub sources (anything outside `fb`, `ig`, `wp` never is) answers 422 `Sub source not found`. Stored as `sub_source` and `platform`.",
  social_campaign: 'Campaign name from the ad platform.',
  social_adset: 'Ad set name from the ad platform.',
  social_ad: 'Ad name from the ad platform.',
  consent:
    'The consent the sender saw the person give. `notice`: the notice shown (an https URL or a version label, 1 to 500 characters); ' +
    '`given_at`: when, as ISO 8601 with an offset (`2026-11-02T10:15:00+05:30`), not more than 5 minutes in the future; `purposes`: optional, at most 10 of 1 to 50 characters each. ' +
    'No other member; `null` counts as absent. Stored on the lead as sent (not trimmed) and sent whole in `Lead Created`; a malformed one is refused 422 with `errors.consent`. ' +
    'A person withdrawing consent is an erasure request (`POST /admin/v1/accounts/{accountId}/erasures`).',
};

/**
 * Fields whose schema begins with a rule of its own (`consent` first refuses what is not a plain object,
 * which JSON Schema's `type: object` already says): converted from the schema of their members.
 */
const convertibleFields: Readonly<Record<string, v.GenericSchema<unknown, unknown>>> = { consent: v.optional(consentMembers) };

/** The rules JSON Schema cannot hold: a field with one of these in its pipe needs a description. */
const UNCONVERTIBLE_ACTIONS = ['check', 'transform'];

type AnySchema = v.GenericSchema<unknown, unknown> & { wrapped?: AnySchema; pipe?: readonly { type: string }[] };

const unconvertibleActionsOf = (schema: AnySchema): string[] => {
  const inner = schema.type === 'optional' && schema.wrapped ? schema.wrapped : schema;
  return (inner.pipe ?? []).map((item) => item.type).filter((type) => UNCONVERTIBLE_ACTIONS.includes(type));
};

// ---------------------------------------------------------------------------------------------------
// Example requests, one or more per endpoint: each passes the endpoint's own validator (the build
// refuses one that does not), and the success examples are made from what that validator answers.

interface RequestExample {
  readonly summary: string;
  readonly value: Readonly<Record<string, Json>>;
}

const requestExamples: Readonly<Record<EndpointName, Readonly<Record<string, RequestExample>>>> = {
  website: {
    landingPage: {
      summary: 'A landing-page form, with UTM parameters and click id',
      value: {
        name: 'Asha Verma',
        mobile_number: '+91 98765 43210',
        email: 'asha.verma@example.com',
        projectID: 'PRJ-1',
        campaignID: 'CMP-1',
        sub_source: 'Skyline landing page',
        location: 'Pune',
        notes: 'Interested in a 3 BHK, site visit this weekend',
        utm_source: 'google',
        utm_medium: 'cpc',
        utm_campaign: 'diwali-launch',
        gclid: 'EAIaIQobChMI8f2',
        visitor_ip: '203.0.113.7',
        consent: { notice: 'https://skyline.example/privacy-notice-v3', given_at: '2025-11-03T15:10:02+05:30', purposes: ['site_visit', 'project_updates'] },
      },
    },
    minimal: {
      summary: 'Only the required fields',
      value: { name: 'Asha Verma', mobile_number: '9876543210', projectID: 'PRJ-1', campaignID: 'CMP-1', sub_source: 'Skyline landing page' },
    },
  },
  portala: {
    enquiry: {
      summary: 'A listing portal A enquiry',
      value: { name: 'Ravi Kumar', mobile_number: '9876500001', projectID: 'PRJ-1', campaignID: 'CMP-1', notes: '2 BHK, ready to move' },
    },
  },
  portalb: {
    enquiry: {
      summary: 'A listing portal B enquiry',
      value: {
        name: 'Meera Iyer',
        mobile_number: '0091-98765-00002',
        email: 'meera.iyer@example.com',
        alternate_number: '9876500012',
        projectID: 'PRJ-1',
        campaignID: 'CMP-1',
        notes: 'Site visit on Sunday',
      },
    },
  },
  social: {
    leadAd: {
      summary: 'A social network A lead ad',
      value: {
        name: 'Kabir Shah',
        mobile_number: '9876500003',
        projectID: 'PRJ-1',
        campaignID: 'CMP-1',
        platform: 'fb',
        profession: 'Architect',
        social_campaign: 'Skyline Towers - Diwali',
        social_adset: 'Pune 25-45',
        social_ad: 'Carousel 3',
      },
    },
  },
};

/** A body with field problems, per endpoint: the 422 example is what the validator answers to it. */
const invalidBodies: Readonly<Record<EndpointName, Readonly<Record<string, string>>>> = {
  website: { name: 'Asha Verma', mobile_number: '12345', email: 'asha@', projectID: 'PRJ-1', campaignID: 'CMP-1' },
  portala: { name: 'Ravi Kumar', mobile_number: '9876500001', projectID: 'PRJ-1', campaignID: 'CMP-1', budget: '1 Cr' },
  portalb: { name: 'Meera Iyer', mobile_number: '9876500002', alternate_number: '+91 98765 00002', projectID: 'PRJ-1', campaignID: 'CMP-1', notes: 'Call back' },
  social: { name: 'Kabir Shah', mobile_number: '5876500003', projectID: 'PRJ-1', campaignID: 'CMP-1' },
};

/** Fixed values where the service would put a fresh one, so the document stays the same run to run. */
const EXAMPLE_LEAD_ID = '01K8Z6Q3M2V4T7XR9BN5C0HDJE';
const EXAMPLE_CREATED_AT = '2025-11-03T09:41:27.512Z';
const EXAMPLE_REQUEST_ID = '5d0f3c1e-8b2a-4c6f-9e7d-2a1b3c4d5e6f';

const validatedExample = (endpoint: LeadEndpoint, example: RequestExample): ValidatedFields => {
  try {
    return leadFieldValidator(endpoint.fields, endpoint.unknownFields)(example.value);
  } catch (error) {
    const detail = error instanceof FieldValidationError ? JSON.stringify(error.errors) : String(error);
    throw new Error(`OpenAPI: the ${endpoint.name} example "${example.summary}" is not valid for its endpoint: ${detail}`);
  }
};

const fieldErrorsOf = (endpoint: LeadEndpoint, body: Readonly<Record<string, string>>): FieldValidationError => {
  try {
    leadFieldValidator(endpoint.fields, endpoint.unknownFields)(body);
  } catch (error) {
    if (error instanceof FieldValidationError) return error;
    throw error;
  }
  throw new Error(`OpenAPI: the invalid ${endpoint.name} example passed validation`);
};

/** The lead record the service stores for validated fields (CONTRACT.md section 4), with fixed id and time. */
const exampleLead = (endpoint: LeadEndpoint, fields: ValidatedFields): JsonObject =>
  leadRecord(submissionOf(taggingOf(endpoint), fields), EXAMPLE_LEAD_ID, new Date(EXAMPLE_CREATED_AT)) as unknown as JsonObject;

// ---------------------------------------------------------------------------------------------------
// Schemas.

const componentRef = (kind: 'schemas' | 'headers' | 'parameters', name: string): JsonObject => ({ $ref: `#/components/${kind}/${name}` });
const ref = (name: string): JsonObject => componentRef('schemas', name);

const schemaName = (endpoint: EndpointName) => `${endpoint[0]!.toUpperCase()}${endpoint.slice(1)}LeadRequest`;

/** The request body schema of an endpoint: its valibot fields as JSON Schema, with the contract's words added. */
export const requestSchema = (endpoint: LeadEndpoint): JsonObject => {
  const converted = toJsonSchema(v.object(Object.fromEntries(Object.entries(endpoint.fields).map(([field, schema]) => [field, convertibleFields[field] ?? schema]))), {
    target: 'draft-2020-12',
    ignoreActions: UNCONVERTIBLE_ACTIONS,
  }) as JsonObject;
  const { $schema: _dialect, properties, required, ...rest } = converted;
  const described: JsonObject = {};
  for (const [field, converted] of Object.entries(properties as Record<string, JsonObject>)) {
    const description = fieldDescriptions[field];
    const unconvertible = unconvertibleActionsOf(endpoint.fields[field] as AnySchema);
    if (unconvertible.length > 0 && description === undefined) {
      throw new Error(`OpenAPI: ${endpoint.name}.${field} has a rule JSON Schema cannot hold (${unconvertible.join(', ')}): describe it in scripts/openapi/build.ts`);
    }
    const schema = numericTextFields.has(field) ? { anyOf: [converted, { type: 'integer', minimum: 0 }] } : converted;
    described[field] = { ...(description !== undefined && { description }), ...schema };
  }
  if (endpoint.browserFacing) {
    // Not a lead field (never validated or stored): the hidden field of a browser form (CONTRACT.md section 7).
    described[HONEYPOT_FIELD] = {
      description:
        'The honeypot of a browser form: a field hidden from people, which bots fill. Leave it out, empty or `null`. With a browser key (a key with origins), a body where it is filled (a string not blank after trimming, or any value other than a string or `null`) is answered as a new lead (200, with a `data` lead) and nothing is stored. Other keys: ignored.',
      type: ['string', 'null'],
    };
  }
  const ignored = endpoint.unknownFields === 'ignore';
  return {
    description:
      'Strings are trimmed before anything else; an optional field sent as `""` or `null` counts as absent, a required one as missing. ' +
      (ignored
        ? 'Other fields are ignored and not stored.'
        : 'Any other field is refused: 422 with one `errors` entry per unexpected field (`<field> is not accepted on this endpoint`).'),
    ...rest,
    properties: described,
    ...(required !== undefined && { required }),
    ...(!ignored && { additionalProperties: false }),
  };
};

const leadRecordSchema: JsonObject = {
  description:
    'The stored lead, exactly (CONTRACT.md section 4). Optional fields that were absent are left out; every optional endpoint field that was given is added under its request name.',
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Unique and time-ordered: ids sort as strings in creation order.' },
    name: { type: 'string' },
    mobile_number: { type: 'string', pattern: '^[6-9][0-9]{9}$', description: 'Normalised: 10 digits.' },
    email: { type: 'string' },
    alternate_number: { type: 'string', pattern: '^[6-9][0-9]{9}$', description: 'Normalised: 10 digits.' },
    projectID: { type: 'string' },
    campaignID: { type: 'string' },
    source: { type: 'string', enum: leadRoutes.map((route) => leadEndpoints[route.endpoint].leadSource) },
    sub_source: {
      type: ['string', 'null'],
      description: 'Website: the sub source name; social: the platform (`fb`, `ig` or `wp`); portals: `null`.',
    },
    is_repeated: { type: 'boolean', description: 'True for a duplicate stored under the account’s `create` or `merge` setting.' },
    parent_lead_id: { type: ['string', 'null'], description: 'Under `merge`, the id of the original lead (never another repeat); else `null`.' },
    created_at: { type: 'string', format: 'date-time', description: 'ISO-8601, UTC.' },
    consent: {
      type: 'object',
      description: 'The consent the request carried (CONTRACT.md section 18), exactly as sent; absent when it carried none.',
      properties: { notice: { type: 'string' }, given_at: { type: 'string' }, purposes: { type: 'array', items: { type: 'string' } } },
      required: ['notice', 'given_at'],
    },
  },
  required: ['id', 'name', 'mobile_number', 'projectID', 'campaignID', 'source', 'sub_source', 'is_repeated', 'parent_lead_id', 'created_at'],
  additionalProperties: { type: 'string' },
};

const componentSchemas = (): JsonObject => ({
  ...Object.fromEntries(leadRoutes.map((route) => [schemaName(route.endpoint), requestSchema(leadEndpoints[route.endpoint])])),
  Lead: leadRecordSchema,
  LeadCreated: {
    type: 'object',
    properties: { status: { const: true }, message: { const: LEAD_CREATED }, data: ref('Lead') },
    required: ['status', 'message', 'data'],
  },
  LeadCreatedWithoutData: {
    description: 'The social endpoint answers without `data`.',
    type: 'object',
    properties: { status: { const: true }, message: { const: LEAD_CREATED } },
    required: ['status', 'message'],
    additionalProperties: false,
  },
  LeadWouldBeCreated: {
    description: 'The answer to a dry run (`x-dry-run: true`) that passed every check: nothing was stored.',
    type: 'object',
    properties: { status: { const: true }, message: { const: LEAD_WOULD_BE_CREATED }, dry_run: { const: true }, data: ref('Lead') },
    required: ['status', 'message', 'dry_run', 'data'],
  },
  Failure: {
    type: 'object',
    properties: { status: { const: false }, message: { type: 'string' } },
    required: ['status', 'message'],
    additionalProperties: false,
  },
  FieldValidationFailure: {
    description: 'Field validation: `errors` lists every failing field, in the order of the fields; `message` is the first problem.',
    type: 'object',
    properties: {
      status: { const: false },
      message: { type: 'string' },
      errors: {
        type: 'object',
        additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
        minProperties: 1,
      },
    },
    required: ['status', 'message', 'errors'],
    additionalProperties: false,
  },
});

// ---------------------------------------------------------------------------------------------------
// Responses.

const message = (Refusal: new () => LeadIntakeError) => new Refusal().message;

const headers = {
  requestId: { description: 'Id of this request; quote it when reporting a problem.', schema: { type: 'string' } },
  retryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  replayed: {
    description: '`true` when this answers a repeat of an earlier request with the same `Idempotency-Key` with that request\'s lead: nothing was stored now.',
    schema: { type: 'string', enum: ['true'] },
  },
  allowOrigin: {
    description:
      'CORS. For a browser key whose origin is one of its own, the request’s `Origin` as sent (with `Vary: Origin`), on every answer but `Origin not allowed`, which has none; for other keys, and before the key is known, the stack’s setting (default `*`).',
    schema: { type: 'string' },
  },
} satisfies JsonObject;

/** Response headers of an operation: `x-request-id` always, the CORS header on the browser-facing route. */
const responseHeaders = (route: LeadRoute, extra: JsonObject = {}): JsonObject => ({
  'x-request-id': componentRef('headers', 'XRequestId'),
  ...(route.browserFacing && { 'Access-Control-Allow-Origin': componentRef('headers', 'AccessControlAllowOrigin') }),
  ...extra,
});

const failureExample = (summary: string, text: string): JsonObject => ({ summary, value: { status: false, message: text } });

/** A refusal with fixed messages: one example per message, and the messages as the schema's enum. */
const refusalResponse = (route: LeadRoute, description: string, messages: Readonly<Record<string, [string, string]>>, extraHeaders?: JsonObject): JsonObject => ({
  description,
  headers: responseHeaders(route, extraHeaders),
  content: {
    'application/json': {
      schema: { allOf: [ref('Failure')], properties: { message: { enum: Object.values(messages).map(([text]) => text) } } },
      examples: Object.fromEntries(Object.entries(messages).map(([key, [text, summary]]) => [key, failureExample(summary, text)])),
    },
  },
});

const operationResponses = (route: LeadRoute): JsonObject => {
  const endpoint = leadEndpoints[route.endpoint];
  const [, firstExample] = Object.entries(requestExamples[route.endpoint])[0]!;
  const fields = validatedExample(endpoint, firstExample);
  const lead = exampleLead(endpoint, fields);
  const checksSubSource = endpoint.subSource(fields) !== null;
  const fieldErrors = fieldErrorsOf(endpoint, invalidBodies[route.endpoint]);
  const created = endpoint.acceptance.withLead ? 'LeadCreated' : 'LeadCreatedWithoutData';

  const fixed422: Record<string, [string, string]> = {
    ...(checksSubSource && {
      subSourceNotFound: [
        message(SubSourceNotFoundError),
        route.endpoint === 'social'
          ? "`platform` is not one of the account's social sub sources"
          : '`sub_source` is not a sub source of the account’s Website source (exact, case-sensitive)',
      ],
    }),
    projectNotFound: [message(ProjectNotFoundError), "`projectID` is not a project of the key's account"],
    campaignNotFound: [message(CampaignNotFoundError), '`campaignID` is not a campaign of that project'],
    leadAlreadyExists: [message(LeadAlreadyExistsError), 'Same mobile number in the same project, under the account’s `ignore` setting'],
    idempotencyKeyReused: [IDEMPOTENCY_KEY_REUSED, 'The `Idempotency-Key` was used within 24 h with a different body'],
  };

  return {
    '200': {
      description: endpoint.acceptance.withLead
        ? 'Lead created (or, with `x-dry-run: true`, it would be: nothing stored). A repeat of an `Idempotency-Key` answers the first lead again, with `idempotent-replayed: true`.'
        : 'Lead created, answered without `data` (or, with `x-dry-run: true`, it would be: nothing stored). A repeat of an `Idempotency-Key` answers the first lead again, with `idempotent-replayed: true`.',
      headers: responseHeaders(route, { 'idempotent-replayed': componentRef('headers', 'IdempotentReplayed') }),
      content: {
        'application/json': {
          schema: { oneOf: [ref(created), ref('LeadWouldBeCreated')] },
          examples: {
            created: {
              summary: 'Lead created',
              value: { status: true, message: LEAD_CREATED, ...(endpoint.acceptance.withLead && { data: lead }) },
            },
            ...(endpoint.acceptance.withLead && {
              repeated: {
                summary: 'A duplicate stored under the `merge` setting',
                value: { status: true, message: LEAD_CREATED, data: { ...lead, is_repeated: true, parent_lead_id: '01K8Z5XW3Y2T6QH0P4RMD9ZB1A' } },
              },
            }),
            dryRun: {
              summary: 'Dry run (`x-dry-run: true`): every check passed, nothing stored',
              value: { status: true, message: LEAD_WOULD_BE_CREATED, dry_run: true, data: lead },
            },
          },
        },
      },
    },
    '400': refusalResponse(route, 'The body is not a JSON object, or the `Idempotency-Key` header is malformed.', {
      malformedJson: [message(MalformedJsonBodyError), 'The body is not valid JSON, or is empty or absent'],
      notAnObject: [message(BodyNotAnObjectError), 'Valid JSON, but not an object'],
      invalidIdempotencyKey: [INVALID_IDEMPOTENCY_KEY, 'A malformed `Idempotency-Key` header'],
    }),
    '401': refusalResponse(route, 'No API key, or an unknown, inactive or expired one, or one whose rotation grace period has ended.', {
      apiKeyMissing: [message(ApiKeyMissingError), 'No `x-api-key` header, or an empty one'],
      invalidCredentials: [message(InvalidApiCredentialsError), 'The key is unknown, inactive, expired, or past its rotation grace period'],
    }),
    '403': refusalResponse(
      route,
      route.browserFacing
        ? 'The key is valid and its account exists, but it does not allow this request. Checked right after the key, before the size, in this order: the key’s endpoints, then (a browser key) the request’s `Origin` header, then (a browser key) a dry run.'
        : 'The key is valid and its account exists, but this endpoint is not one of its endpoints (a browser key, one with origins, only posts to the website endpoint). Checked right after the key, before the size.',
      {
        keyNotAllowedOnEndpoint: [message(KeyNotAllowedOnEndpointError), 'This endpoint is not one of the key’s endpoints'],
        ...(route.browserFacing && {
          originNotAllowed: [message(OriginNotAllowedError), 'A browser key, and the `Origin` header is absent or not one of its origins (this answer has no `Access-Control-Allow-Origin`)'],
          dryRunNotAllowed: [message(DryRunNotAllowedError), '`x-dry-run: true` with a browser key'],
        }),
      },
    ),
    '404': refusalResponse(route, 'The key is valid and active, but its account does not exist.', {
      clientNotFound: [message(ClientNotFoundError), 'The key’s account does not exist'],
    }),
    '413': refusalResponse(route, `The body is over 64 KiB (${MAX_BODY_BYTES.toLocaleString('en-US')} bytes; a body of exactly that size is read).`, {
      payloadTooLarge: [message(PayloadTooLargeError), `Body over ${MAX_BODY_BYTES.toLocaleString('en-US')} bytes`],
    }),
    '415': refusalResponse(
      route,
      'A Content-Type is sent and it is not JSON (`application/json`, with or without parameters, or `application/*+json`). A missing Content-Type is accepted.',
      { unsupportedContentType: [message(UnsupportedContentTypeError), 'For example `Content-Type: text/plain`'] },
    ),
    '422': {
      description:
        'Field validation (with `errors`, one entry per failing field), or the lead is refused: ' +
        `${Object.values(fixed422)
          .map(([text]) => `\`${text}\``)
          .join(', ')}. Checks run in this order and the first failure answers: fields, ${checksSubSource ? 'sub source, ' : ''}project, campaign, duplicate.`,
      headers: responseHeaders(route),
      content: {
        'application/json': {
          schema: {
            oneOf: [
              ref('FieldValidationFailure'),
              { allOf: [ref('Failure')], properties: { message: { enum: Object.values(fixed422).map(([text]) => text) } } },
            ],
          },
          examples: {
            fieldValidation: {
              summary: 'Field validation: every failing field is listed, the first problem is the message',
              value: { status: false, message: fieldErrors.message, errors: fieldErrors.errors as unknown as Json },
            },
            ...Object.fromEntries(Object.entries(fixed422).map(([key, [text, summary]]) => [key, failureExample(summary, text)])),
          },
        },
      },
    },
    '500': {
      description: 'Anything unexpected. The message names the request id and never carries internal detail.',
      headers: responseHeaders(route),
      content: {
        'application/json': {
          schema: { allOf: [ref('Failure')], properties: { message: { type: 'string', pattern: '^Lead could not be created \\(request [^)]+\\)$' } } },
          examples: { unexpected: failureExample('An unexpected error', `Lead could not be created (request ${EXAMPLE_REQUEST_ID})`) },
        },
      },
    },
    '503': refusalResponse(
      route,
      'The database throttled or could not be reached after retries. Nothing was stored that this request answers for: retry after `Retry-After` seconds (with the same `Idempotency-Key`, a retry cannot store the lead twice).',
      { unavailable: [new ServiceUnavailableError(1).message, 'Database throttled or unreachable'] },
      { 'Retry-After': componentRef('headers', 'RetryAfter') },
    ),
  };
};

// ---------------------------------------------------------------------------------------------------
// Operations.

const operationIds: Readonly<Record<EndpointName, string>> = {
  website: 'createWebsiteLead',
  portala: 'createPortalALead',
  portalb: 'createPortalBLead',
  social: 'createSocialLead',
};

const summaries: Readonly<Record<EndpointName, string>> = {
  website: 'Website form lead',
  portala: 'Listing portal A lead',
  portalb: 'Listing portal B lead',
  social: 'Social platform lead',
};

const descriptions: Readonly<Record<EndpointName, string>> = {
  website:
    'A lead from a website or landing-page form. Recorded under the Website source, with `sub_source` as its sub source. Browser forms may post here directly: the endpoint answers CORS preflight and sets `Access-Control-Allow-Origin`. Fields beyond those listed are ignored.',
  portala:
    'A lead from listing portal A (the portal is the sender). Send a separate `projectID`/`campaignID` pair for each project listed on the portal. Only the common fields and `notes` are accepted.',
  portalb:
    'A lead from listing portal B (the portal is the sender). Send a separate `projectID`/`campaignID` pair for each project listed on the portal. Only the common fields and `notes` are accepted.',
  social:
    'A lead from a social-ad platform: `platform` (`fb`, `ig`, `wp`) selects the sub source. Answers without `data`. Fields beyond those listed are ignored.',
};

const postOperation = (route: LeadRoute): JsonObject => {
  const endpoint = leadEndpoints[route.endpoint];
  const examples = requestExamples[route.endpoint];
  for (const example of Object.values(examples)) validatedExample(endpoint, example);
  return {
    operationId: operationIds[route.endpoint],
    summary: summaries[route.endpoint],
    description: descriptions[route.endpoint],
    tags: ['Leads'],
    parameters: [componentRef('parameters', 'IdempotencyKey'), componentRef('parameters', 'DryRun')],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: ref(schemaName(route.endpoint)),
          examples: Object.fromEntries(Object.entries(examples).map(([key, example]) => [key, { summary: example.summary, value: example.value }])),
        },
      },
    },
    responses: operationResponses(route),
  };
};

/** CORS preflight of a browser-facing route: answered before the key check, so it needs no key. */
const preflightOperation = (route: LeadRoute): JsonObject => ({
  operationId: `${operationIds[route.endpoint]}Preflight`,
  summary: `CORS preflight of the ${summaries[route.endpoint].toLowerCase()} endpoint`,
  description: 'Browsers send this before a cross-origin POST. No API key needed; no body.',
  tags: ['Leads'],
  security: [],
  responses: {
    '204': {
      description: 'Preflight answered.',
      headers: {
        ...responseHeaders(route),
        'Access-Control-Allow-Methods': { description: 'Allowed methods.', schema: { type: 'string', const: 'POST, OPTIONS' } },
        'Access-Control-Allow-Headers': {
          description: 'Allowed request headers, named explicitly (not `*`): among them `content-type` and `x-api-key`.',
          schema: { type: 'string' },
        },
        'Access-Control-Max-Age': { description: 'Seconds a browser may cache this answer.', schema: { type: 'string' } },
      },
    },
    '429': {
      description: 'API Gateway’s own answer past the website route’s throttle (websiteThrottlingRateLimit): the browser retries the preflight later.',
      content: { 'application/json': { schema: { type: 'object', properties: { message: { const: 'Too Many Requests' } } } } },
    },
  },
});

const API_DESCRIPTION = [
  'Lead intake of a real-estate CRM: website and landing-page forms, two listing portals and social-ad connectors create leads in the CRM account that owns the API key.',
  '',
  '**Authentication.** Every request carries the account’s key in the `x-api-key` header (the header name is case-insensitive).',
  '',
  '**Answers.** Every answer is JSON (`application/json; charset=utf-8`) with an `x-request-id` header. Success: `{"status": true, "message": "Lead created successfully", "data": {...lead...}}` (the social endpoint answers without `data`). Failure: `{"status": false, "message": "..."}`; only field validation adds `errors` (one entry per failing field).',
  '',
  '**Order of checks.** API key (401, 404), then what the key allows (403: its endpoints, its origins, no dry run with a browser key), then size (413), Content-Type (415), JSON (400), fields (422 with `errors`), then sub source, project, campaign and duplicate (422). The first failure answers.',
  '',
  '**Scoped keys.** A key may be limited to endpoints, to browser origins and in time. A key with origins is a *browser key*, made to be seen in a web page: it posts only to the website endpoint, only with an `Origin` header that is one of its origins, never as a dry run, and a body with the hidden `company_website` field filled is answered as a new lead and not stored. An expired key, or a rotated one past its grace period, answers 401 `Invalid API credentials`.',
  '',
  '**Duplicates.** A lead with the same normalised `mobile_number` in the same project is a duplicate. Under the account’s `ignore` setting it is refused (422 `Lead already exists`); under `create` it is stored with `is_repeated: true`; under `merge` also with `parent_lead_id` set to the original lead.',
  '',
  '**Retries.** On 503 retry after `Retry-After` seconds. Send an `Idempotency-Key` to make retries safe: a repeat within 24 hours answers the first lead again (header `idempotent-replayed: true`) and stores nothing.',
  '',
  '**Testing an integration.** Send `x-dry-run: true`: every check runs, including the duplicate check, and nothing is stored (not with a browser key: 403).',
].join('\n');

/** The OpenAPI 3.1 document of the service. */
export const buildOpenApiDocument = (): JsonObject => {
  const { version } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  const paths: JsonObject = {};
  for (const route of leadRoutes) {
    paths[route.path] = {
      post: postOperation(route),
      ...(route.browserFacing && { options: preflightOperation(route) }),
    };
  }
  for (const { source, docs } of documentedSources) paths[source.route.path] = docs.openApiOperations();
  return {
    openapi: '3.1.0',
    // The service is the CRM's own: no open-source license, stated as such (SPDX has no id for it; LicenseRef- is SPDX's way).
    info: { title: 'Lead intake service', version, description: API_DESCRIPTION, license: { name: 'Proprietary: the CRM’s own, all rights reserved', identifier: 'LicenseRef-Proprietary' } },
    servers: [
      {
        url: '{base_url}',
        description: 'The deployed API (stack output BaseUrl)',
        variables: { base_url: { default: 'https://abc123.execute-api.ap-south-1.amazonaws.com', description: 'The base address of the deployed API' } },
      },
      { url: '/', description: 'The server showing this page (npm start serves it at /docs)' },
      { url: 'http://127.0.0.1:3000', description: 'Local (npm start)' },
    ],
    security: [{ apiKey: [] }],
    tags: [{ name: 'Leads', description: 'The four lead-creation endpoints.' }, ...documentedSources.map(({ docs }) => docs.openApiTag), adminTag],
    paths: { ...paths, ...adminPaths() },
    components: {
      securitySchemes: {
        sigv4: sigv4Scheme,
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The CRM account’s API key. Missing: 401 `API Key missing`; unknown or inactive: 401 `Invalid API credentials`.' },
        ...Object.assign({}, ...documentedSources.map(({ docs }) => docs.openApiSecuritySchemes ?? {})),
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: `Makes a retry safe. Scoped to the account. A repeat of the same key with the same body within 24 hours answers the first lead again (200, with \`idempotent-replayed: true\`) and stores nothing; the same key with a different body answers 422 \`${IDEMPOTENCY_KEY_REUSED}\`. A malformed key answers 400 \`${INVALID_IDEMPOTENCY_KEY}\`.`,
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
          example: 'form-7f3c9a2e-0001',
        },
        DryRun: {
          name: 'x-dry-run',
          in: 'header',
          required: false,
          description: `\`true\` runs every check, including the duplicate check, and stores nothing: 200 \`${LEAD_WOULD_BE_CREATED}\` with \`"dry_run": true\` and the would-be lead, or the exact error a real request would get.`,
          schema: { type: 'string', enum: ['true'] },
        },
      },
      headers: {
        XRequestId: headers.requestId,
        RetryAfter: headers.retryAfter,
        IdempotentReplayed: headers.replayed,
        AccessControlAllowOrigin: headers.allowOrigin,
      },
      schemas: { ...componentSchemas(), ...adminSchemas },
    },
  };
};
