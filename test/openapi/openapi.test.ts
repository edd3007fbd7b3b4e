import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import * as v from 'valibot';
import {
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
} from '../../shared/domain/errors.ts';
import { LEAD_CREATED } from '../../shared/http/envelope.ts';
import { routeKeyOf, type EndpointName } from '../../shared/routes.ts';
import { adminRoutes } from '../../shared/admin-routes.ts';
import { leadRoutes, leadSources } from '../../shared/sources/registry.ts';
import { leadFieldValidator } from '../../shared/domain/field-validation.ts';
import {
  buildOpenApiDocument,
  IDEMPOTENCY_KEY_REUSED,
  INVALID_IDEMPOTENCY_KEY,
  LEAD_WOULD_BE_CREATED,
  leadEndpoints,
  OPENAPI_FILE,
  requestSchema,
  serialiseOpenApiDocument,
} from '../../scripts/openapi/build.ts';

// The document is plain JSON; reading it loosely keeps the assertions short.
type Loose = any;

const committedText = readFileSync(OPENAPI_FILE, 'utf8');
const committed: Loose = JSON.parse(committedText);
const fresh: Loose = buildOpenApiDocument();

/** The first place two JSON values differ, as a path, for the failure message. */
const firstDifference = (a: unknown, b: unknown, at = '$'): string | undefined => {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return at;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}.${key}`);
    if (found) return found;
  }
  return `${at} (key order)`;
};

const post = (document: Loose, endpoint: EndpointName): Loose => document.paths[leadRoutes.find((r) => r.endpoint === endpoint)!.path].post;
const json = (response: Loose): Loose => response.content['application/json'];
const exampleMessages = (response: Loose): string[] => Object.values(json(response).examples as Record<string, Loose>).map((e) => e.value.message);
const resolve = (document: Loose, reference: Loose): Loose => {
  if (!reference?.$ref) return reference;
  const [, , kind, name] = (reference.$ref as string).split('/');
  return document.components[kind!][name!];
};

const endpoints = leadRoutes.map((route) => route.endpoint);

describe('docs/openapi.json', () => {
  it('is what the schemas give now (run npm run openapi after changing them)', () => {
    const difference = firstDifference(committed, fresh);
    if (difference !== undefined) throw new Error(`docs/openapi.json is out of date at ${difference}: run npm run openapi`);
    if (committedText !== serialiseOpenApiDocument(fresh)) throw new Error('docs/openapi.json is not formatted as npm run openapi writes it: run npm run openapi');
  });

  it('is built the same way twice (no timestamps, stable key order)', () => {
    expect(serialiseOpenApiDocument(buildOpenApiDocument())).toBe(serialiseOpenApiDocument(fresh));
  });

  it('follows a change of a valibot schema, so the check above catches a document left behind', () => {
    const website = leadEndpoints.website;
    const changed = { ...website, fields: { ...website.fields, name: v.pipe(v.string(), v.minLength(1), v.maxLength(300)) } };
    expect(committed.components.schemas.WebsiteLeadRequest.properties.name.maxLength).toBe(200);
    expect(requestSchema(changed)).not.toEqual(committed.components.schemas.WebsiteLeadRequest);
    expect((requestSchema(changed).properties as Loose).name.maxLength).toBe(300);
  });

  it('refuses a field whose rule JSON Schema cannot hold when it has no description', () => {
    const website = leadEndpoints.website;
    const changed = { ...website, fields: { ...website.fields, floor: v.optional(v.pipe(v.string(), v.check((value) => value !== '13'))) } };
    expect(() => requestSchema(changed)).toThrow(/website\.floor .*describe it/);
  });
});

describe('the document', () => {
  it('is OpenAPI 3.1 with the key as an apiKey scheme in x-api-key, for every operation but preflight', () => {
    expect(fresh.openapi).toBe('3.1.0');
    expect(fresh.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(fresh.security).toEqual([{ apiKey: [] }]);
    for (const endpoint of endpoints) expect(post(fresh, endpoint).security).toBeUndefined();
    expect(fresh.paths['/api/website-lead-create'].options.security).toEqual([]);
  });

  it('names {base_url} as a server variable, the serving server and the local server', () => {
    expect(fresh.servers.map((s: Loose) => s.url)).toEqual(['{base_url}', '/', 'http://127.0.0.1:3000']);
    expect(fresh.servers[0].variables.base_url.default).toMatch(/^https:\/\//);
  });

  it('has every route and method of the route table, and nothing else', () => {
    expect(Object.keys(fresh.paths).filter((p) => !p.startsWith('/admin/'))).toEqual(leadSources.map((source) => source.route.path));
    for (const route of leadRoutes) {
      expect(Object.keys(fresh.paths[route.path])).toEqual(route.browserFacing ? ['post', 'options'] : ['post']);
    }
    expect(new Set(endpoints.map((e) => post(fresh, e).operationId)).size).toBe(4);
  });

  it('documents every admin route under its own tag, signed with SigV4, with the contract messages', () => {
    const adminPaths = Object.keys(fresh.paths).filter((p) => p.startsWith('/admin/v1/'));
    const operations = adminPaths.flatMap((p) => Object.entries(fresh.paths[p]).map(([method, operation]) => [`${method.toUpperCase()} ${p}`, operation as Loose] as const));
    expect(operations.map(([key]) => key).sort()).toEqual(adminRoutes.map(routeKeyOf).sort());
    for (const [, operation] of operations) {
      expect(operation.tags).toEqual(['Admin']);
      expect(operation.security).toEqual([{ sigv4: [] }]);
      expect(operation.responses['403'].content['application/json'].schema.properties.message.const).toBe('Forbidden');
    }
    // The four endpoints' tag, each source with an OpenAPI module of its own under its title, in the registry's order, then the admin API's.
    expect(fresh.tags.map((t: Loose) => t.name)).toEqual(['Leads', ...leadSources.filter((source) => source.openapi).map((source) => source.title), 'Admin']);
    const put = fresh.paths['/admin/v1/accounts/{accountId}/projects/{projectId}/campaigns/{campaignId}'].put;
    expect(exampleMessages(put.responses['409'])).toEqual(['Campaign belongs to another project']);
    expect(exampleMessages(put.responses['404'])).toEqual(['Account not found', 'Project not found']);
    expect(Object.keys(fresh.paths['/admin/v1/accounts/{accountId}/keys'].post.responses)).toContain('201');
    expect(fresh.paths['/admin/v1/accounts/{accountId}/projects/{projectId}'].delete.responses['204']).toBeDefined();
  });

  it('gives every operation a description, and every one a 4XX answer (Spectral oas, Redocly recommended)', () => {
    for (const [path, item] of Object.entries(fresh.paths as Record<string, Record<string, Loose>>)) {
      for (const [method, operation] of Object.entries(item)) {
        expect([`${method} ${path}`, typeof operation.description === 'string' && operation.description.length > 20]).toEqual([`${method} ${path}`, true]);
        expect([`${method} ${path}`, Object.keys(operation.responses).some((status) => status.startsWith('4'))]).toEqual([`${method} ${path}`, true]);
      }
    }
    expect(fresh.info.license).toEqual({ name: expect.any(String), identifier: 'LicenseRef-Proprietary' });
  });

  it('documents the call webhook: GET and POST, each provider, the key in the header or the query, and the contract messages', () => {
    const item = fresh.paths['/api/call-lead-webhook/{provider}'];
    expect(Object.keys(item).sort()).toEqual(['get', 'post']);
    for (const operation of [item.get, item.post]) {
      expect(operation.parameters).toContainEqual(expect.objectContaining({ name: 'provider', in: 'path', schema: { type: 'string', enum: ['exotel', 'knowlarity', 'generic'] } }));
      expect(operation.security).toEqual([{ apiKey: [] }, { callsKeyInQuery: [] }]);
      expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '404', '413', '415', '429', '503']);
      expect(operation.responses['429'].content['application/json; charset=utf-8'].example).toEqual({ status: false, message: 'Too many requests for this API key, please retry' });
      expect(operation.responses['429'].headers).toHaveProperty('Retry-After');
      expect(operation.responses['200'].content['application/json; charset=utf-8'].example).toEqual({ status: true, message: 'Call received' });
      expect(operation.responses['403'].content['application/json; charset=utf-8'].example).toEqual({ status: false, message: 'API key not allowed on this endpoint' });
      expect(operation.responses['404'].content['application/json; charset=utf-8'].example).toEqual({ status: false, message: 'Unknown call provider' });
    }
    expect(fresh.components.securitySchemes.callsKeyInQuery).toMatchObject({ type: 'apiKey', in: 'query', name: 'key' });
    expect(Object.keys(item.post.requestBody.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
  });

  it('documents the Google Ads webhook with the contract messages, its ids as 64-bit integers', () => {
    const operation = fresh.paths['/api/google-ads-lead-webhook'].post;
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '413', '415', '503']);
    expect(operation.responses['200'].content['application/json; charset=utf-8'].example).toEqual({ status: true, message: 'Lead received' });
    expect(operation.responses['401'].content['application/json; charset=utf-8'].example).toEqual({ status: false, message: 'Invalid google_key' });
    expect(operation.requestBody.content['application/json'].schema.properties.form_id.type).toBe('integer');
  });

  it('documents the WhatsApp webhook (GET and POST, signed, the contract messages) and its numbers’ admin routes (409 for another account’s number)', () => {
    const item = fresh.paths['/api/whatsapp-webhook'];
    expect(Object.keys(item).sort()).toEqual(['get', 'post']);
    expect(Object.keys(item.get.responses).sort()).toEqual(['200', '403']);
    expect(Object.keys(item.post.responses).sort()).toEqual(['200', '400', '401', '413', '503']);
    expect(item.post.responses['200'].content['application/json; charset=utf-8'].example).toEqual({ status: true, message: 'Notification received' });
    expect(item.post.responses['401'].content['application/json; charset=utf-8'].example).toEqual({ status: false, message: 'Invalid signature' });
    expect(item.post.parameters).toContainEqual(expect.objectContaining({ name: 'X-Hub-Signature-256', in: 'header', required: true }));
    const numbers = fresh.paths['/admin/v1/accounts/{accountId}/whatsapp-numbers/{phoneNumberId}'];
    expect(exampleMessages(numbers.put.responses['409'])).toEqual(['WhatsApp number is connected to another account']);
    expect(exampleMessages(numbers.put.responses['404'])).toEqual(['Account not found', 'Project not found', 'Campaign not found']);
    expect(exampleMessages(numbers.delete.responses['404'])).toEqual(['Account not found', 'WhatsApp number not found']);
    expect(Object.keys(numbers.put.responses)).toEqual(expect.arrayContaining(['200', '201']));
    expect(fresh.components.schemas.WhatsAppNumber.required).toEqual(['phone_number_id', 'project_id', 'campaign_id', 'connected_at']);
  });

  it('documents Idempotency-Key and x-dry-run as optional headers of the four operations', () => {
    const { IdempotencyKey, DryRun } = fresh.components.parameters;
    expect(IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: false, schema: { minLength: 1, maxLength: 255 } });
    expect(IdempotencyKey.description).toContain(IDEMPOTENCY_KEY_REUSED);
    expect(DryRun).toMatchObject({ name: 'x-dry-run', in: 'header', required: false, schema: { enum: ['true'] } });
    for (const endpoint of endpoints) {
      expect(post(fresh, endpoint).parameters.map((p: Loose) => resolve(fresh, p).name)).toEqual(['Idempotency-Key', 'x-dry-run']);
    }
  });
});

describe.each(endpoints)('%s: request', (endpoint) => {
  const { fields, unknownFields } = leadEndpoints[endpoint];
  const operation = post(fresh, endpoint);
  const schema = resolve(fresh, json(operation.requestBody).schema);

  it('has the fields of its valibot schema, the required ones required', () => {
    // The website schema adds the honeypot of browser forms, which is not a lead field.
    expect(Object.keys(schema.properties)).toEqual([...Object.keys(fields), ...(endpoint === 'website' ? ['company_website'] : [])]);
    const required = Object.entries(fields)
      .filter(([, field]) => field.type !== 'optional')
      .map(([name]) => name);
    expect(schema.required).toEqual(required);
    expect(schema.additionalProperties).toBe(unknownFields === 'reject' ? false : undefined);
  });

  it('accepts a string or a non-negative integer for the id and phone fields', () => {
    for (const field of ['mobile_number', 'alternate_number', 'projectID', 'campaignID']) {
      expect(schema.properties[field].anyOf).toEqual([expect.objectContaining({ type: 'string' }), { type: 'integer', minimum: 0 }]);
    }
    expect(schema.properties.mobile_number.description).toContain('+91 98765 43210');
  });

  it('has examples that pass the endpoint’s own validator', () => {
    const examples = Object.values(json(operation.requestBody).examples as Record<string, Loose>);
    expect(examples.length).toBeGreaterThan(0);
    const validate = leadFieldValidator(fields, unknownFields);
    for (const example of examples) expect(() => validate(example.value)).not.toThrow();
  });
});

describe.each(endpoints)('%s: answers', (endpoint) => {
  const operation = post(fresh, endpoint);
  const { responses } = operation;
  const message = (Refusal: new () => Error) => new Refusal().message;

  it('has every status of the contract', () => {
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '403', '404', '413', '415', '422', '500', '503']);
    for (const response of Object.values(responses as Record<string, Loose>)) expect(response.headers['x-request-id']).toBeDefined();
  });

  it('answers success as the contract says', () => {
    const ok = json(responses['200']);
    const created = ok.examples.created.value;
    expect(created).toMatchObject({ status: true, message: LEAD_CREATED });
    const successSchema = resolve(fresh, ok.schema.oneOf[0]);
    if (endpoint === 'social') {
      expect(created).not.toHaveProperty('data');
      expect(successSchema.properties).not.toHaveProperty('data');
      expect(successSchema.additionalProperties).toBe(false);
    } else {
      expect(successSchema.required).toEqual(['status', 'message', 'data']);
      const request = Object.values(json(operation.requestBody).examples as Record<string, Loose>)[0].value;
      const validated = leadFieldValidator(leadEndpoints[endpoint].fields, leadEndpoints[endpoint].unknownFields)(request);
      expect(created.data).toMatchObject({ ...validated, source: endpoint, is_repeated: false, parent_lead_id: null });
      expect(created.data.mobile_number).toMatch(/^[6-9]\d{9}$/);
    }
    expect(ok.examples.dryRun.value).toMatchObject({ status: true, message: LEAD_WOULD_BE_CREATED, dry_run: true, data: expect.any(Object) });
    expect(responses['200'].headers['idempotent-replayed']).toBeDefined();
  });

  it.each([
    ['401', [message(ApiKeyMissingError), message(InvalidApiCredentialsError)]],
    ['404', [message(ClientNotFoundError)]],
    ['403', endpoint === 'website' ? [message(KeyNotAllowedOnEndpointError), message(OriginNotAllowedError), message(DryRunNotAllowedError)] : [message(KeyNotAllowedOnEndpointError)]],
    ['413', [message(PayloadTooLargeError)]],
    ['415', [message(UnsupportedContentTypeError)]],
    ['400', [message(MalformedJsonBodyError), message(BodyNotAnObjectError), INVALID_IDEMPOTENCY_KEY]],
    ['503', [new ServiceUnavailableError(1).message]],
  ])('answers %s with exactly its messages', (status, messages) => {
    expect(exampleMessages(responses[status])).toEqual(messages);
    expect(json(responses[status]).schema.properties.message.enum).toEqual(messages);
    expect(resolve(fresh, json(responses[status]).schema.allOf[0]).properties.status).toEqual({ const: false });
  });

  it('answers 503 with Retry-After', () => {
    expect(resolve(fresh, responses['503'].headers['Retry-After']).schema).toEqual({ type: 'integer', minimum: 0 });
  });

  it('answers 422 with the errors shape and each of its messages', () => {
    const unprocessable = json(responses['422']);
    const { fieldValidation, ...others } = unprocessable.examples;
    expect(fieldValidation.value.status).toBe(false);
    const errors = fieldValidation.value.errors as Record<string, string[]>;
    expect(Object.keys(errors).length).toBeGreaterThan(0);
    expect(fieldValidation.value.message).toBe(Object.values(errors)[0]![0]);
    expect(new FieldValidationError(errors).message).toBe(fieldValidation.value.message);
    expect(resolve(fresh, unprocessable.schema.oneOf[0]).required).toEqual(['status', 'message', 'errors']);

    const subSource = endpoint === 'website' || endpoint === 'social' ? [message(SubSourceNotFoundError)] : [];
    const messages = [...subSource, message(ProjectNotFoundError), message(CampaignNotFoundError), message(LeadAlreadyExistsError), IDEMPOTENCY_KEY_REUSED];
    expect(Object.values(others as Record<string, Loose>).map((e) => e.value)).toEqual(messages.map((text) => ({ status: false, message: text })));
    expect(unprocessable.schema.oneOf[1].properties.message.enum).toEqual(messages);
  });

  it('answers 500 with the request id in the message', () => {
    const unexpected = json(responses['500']);
    expect(new RegExp(unexpected.schema.properties.message.pattern).test(unexpected.examples.unexpected.value.message)).toBe(true);
    expect(unexpected.examples.unexpected.value.message).toMatch(/^Lead could not be created \(request .+\)$/);
  });
});

describe('the Meta webhook in docs/openapi.json', () => {
  const webhook = fresh.paths['/api/meta-leadgen-webhook'];

  it('documents GET verification and the signed POST, without the API key', () => {
    expect(Object.keys(webhook)).toEqual(['get', 'post']);
    expect(webhook.get.security).toEqual([]);
    expect(webhook.post.security).toEqual([]);
    expect(webhook.post.parameters.map((p: Loose) => [p.name, p.in, p.required])).toEqual([['X-Hub-Signature-256', 'header', true]]);
  });

  it('gives the contract answers: challenge as text, 403, 200 Notification received, 400 and 401', () => {
    expect(Object.keys(webhook.get.responses['200'].content)).toEqual(['text/plain; charset=utf-8']);
    expect(Object.keys(webhook.get.responses)).toEqual(['200', '403']);
    expect(Object.keys(webhook.post.responses)).toEqual(['200', '400', '401', '500']);
    expect(webhook.post.responses['200'].content['application/json; charset=utf-8'].example).toEqual({ status: true, message: 'Notification received' });
    expect(webhook.post.responses['401'].content['application/json; charset=utf-8'].example).toEqual({ status: false, message: 'Invalid signature' });
    expect(webhook.post.responses['400'].content['application/json; charset=utf-8'].example.message).toBe('Malformed JSON body');
  });
});
