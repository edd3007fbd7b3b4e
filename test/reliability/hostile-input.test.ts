import { beforeAll, describe, expect, it } from '@jest/globals';
import { isIP } from 'node:net';
import fc from 'fast-check';
import type { LeadRecord } from '../../shared/domain/lead.ts';
import type { EndpointName } from '../../shared/routes.ts';
import { endpointNames, testService, type Answer, type TestService } from '../support/service.ts';

/**
 * Property-based fuzzing of the four endpoints with hostile bodies and headers, mixed with valid leads
 * in every shape senders use. Whatever arrives, the answer is the contract's envelope with the exact
 * message of its status (`errors` only on a field-validation 422), every valid lead is taken (200,
 * stored as section 2 says), and anything stored obeys every rule of sections 2 and 4.
 */
let service: TestService;
let apiKey: string;
// Per endpoint; 2,800 bodies a run, a quarter of them valid leads (each one a real write); more with FUZZ_RUNS.
const RUNS = Number(process.env.FUZZ_RUNS ?? 700);

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({
    id: 'acc-fuzz',
    duplicateSetting: 'create',
    projects: { 'PRJ-1': ['CMP-1'], '1001': ['2002'] },
    website: ['Skyline landing page'],
    social: ['fb', 'ig', 'wp'],
  });
  apiKey = await service.issueKey('acc-fuzz');
});

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom('', ' ', '\u0000', '\u202e', '९८७६५४३२१०', '+91 98765 43210', 'a@b.co', '__proto__', '<script>', '1e3', '-1'),
  fc.string({ minLength: 4990, maxLength: 5010 }),
);
const hostileValue = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.anything(), { maxLength: 3 }),
  fc.object({ maxDepth: 3 }),
  fc.constantFrom(9876543210, 919876543210, 1001, 2002),
);
const fieldNames = fc.constantFrom(
  'name', 'mobile_number', 'email', 'alternate_number', 'projectID', 'campaignID', 'sub_source', 'notes', 'platform',
  'visitor_ip', 'utm_source', 'profession', '__proto__', 'constructor', 'prototype', 'extra',
);
const plausible = {
  name: 'Fuzz Lead', mobile_number: '9876543210', projectID: 'PRJ-1', campaignID: 'CMP-1',
  sub_source: 'Skyline landing page', notes: 'n', platform: 'fb',
};

/** Raw request bodies: mutated plausible leads, arbitrary JSON, truncated JSON, giant bodies. */
const rawBody = fc.oneof(
  fc.dictionary(fieldNames, hostileValue).map((fields) => JSON.stringify({ ...plausible, ...fields })),
  fc.dictionary(fieldNames, hostileValue).map((fields) => JSON.stringify(fields)),
  fc.json(),
  fc.json().chain((json) => fc.nat(json.length).map((cut) => json.slice(0, cut))),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(`{"name":"a","name":"b","mobile_number":"9876543210","projectID":"PRJ-1","campaignID":"CMP-1","notes":"x","sub_source":"Skyline landing page","platform":"fb"}`),
  fc.integer({ min: 1, max: 5_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.integer({ min: 1, max: 5_000 }).map((depth) => JSON.stringify({ ...plausible, extra: 0 }).replace('0}', `${'['.repeat(depth)}${']'.repeat(depth)}}`)),
  fc.integer({ min: 65_000, max: 66_000 }).map((size) => JSON.stringify({ ...plausible, notes: 'x'.repeat(size) })),
);
const contentType = fc.option(
  fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/vnd.lead+json', '', 'APPLICATION/JSON'),
  { nil: undefined },
);
const jsonContentType = fc.option(fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/vnd.lead+json', 'APPLICATION/JSON'), { nil: undefined });
const keyHeaderName = fc.constantFrom('x-api-key', 'X-Api-Key', 'X-API-KEY', 'x-API-key');

/** The valid share: leads every rule of contract section 2 accepts, in the shapes senders use. */
const padded = (value: fc.Arbitrary<string>) => fc.tuple(fc.constantFrom('', ' ', '  ', '\t'), value, fc.constantFrom('', ' ', '\n')).map(([a, text, b]) => `${a}${text}${b}`);
const text = (max: number) => fc.string({ minLength: 1, maxLength: max }).filter((value) => value.trim().length > 0);
const tenDigits = fc.tuple(fc.constantFrom('6', '7', '8', '9'), fc.stringMatching(/^\d{9}$/)).map(([first, rest]) => `${first}${rest}`);
const mobileAsSent = tenDigits.chain((digits) =>
  fc.constantFrom<[string, unknown]>(
    [digits, digits],
    [digits, `+91 ${digits.slice(0, 5)} ${digits.slice(5)}`],
    [digits, `0091-${digits.slice(0, 5)}-${digits.slice(5)}`],
    [digits, `0${digits}`],
    [digits, `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}.${digits.slice(6)}`],
    [digits, Number(digits)],
  ),
);
const email = fc
  .tuple(fc.stringMatching(/^[a-z0-9]{1,20}(\.[a-z0-9]{1,10})?$/), fc.stringMatching(/^[a-z]{1,20}$/), fc.stringMatching(/^[a-z]{2,6}$/))
  .map(([local, domain, tld]) => `${local}@${domain}.${tld}`);
const absent = fc.constantFrom(undefined, null, '', '  ');
const optional = <T>(value: fc.Arbitrary<T>) => fc.oneof(value, absent);
const ownFields: Record<EndpointName, Record<string, fc.Arbitrary<unknown>>> = {
  website: {
    sub_source: padded(fc.constant('Skyline landing page')),
    profession: optional(text(200)),
    location: optional(text(200)),
    notes: optional(text(5000)),
    utm_id: optional(text(500)),
    utm_campaign: optional(text(500)),
    utm_source: optional(text(500)),
    utm_medium: optional(text(500)),
    utm_term: optional(text(500)),
    gclid: optional(text(500)),
    fbclid: optional(text(500)),
    visitor_ip: optional(fc.oneof(fc.ipV4(), fc.ipV6())),
    unknown_field: optional(text(20)),
  },
  portala: { notes: text(5000) },
  portalb: { notes: text(5000) },
  social: {
    platform: padded(fc.constantFrom('fb', 'ig', 'wp')),
    profession: optional(text(200)),
    location: optional(text(200)),
    notes: optional(text(5000)),
    social_campaign: optional(text(500)),
    social_adset: optional(text(500)),
    social_ad: optional(text(500)),
    form_id: optional(text(20)),
  },
};
const REQUIRED_OWN: Record<EndpointName, string> = { website: 'sub_source', portala: 'notes', portalb: 'notes', social: 'platform' };
const validLead = (name: EndpointName) =>
  fc
    .record({
      name: padded(text(200)),
      mobile: mobileAsSent,
      alternate: fc.option(mobileAsSent, { nil: undefined }),
      email: optional(email),
      ids: fc.constantFrom<[unknown, unknown]>(['PRJ-1', 'CMP-1'], [' PRJ-1 ', 'CMP-1 '], ['1001', '2002'], [1001, 2002]),
      own: fc.record(ownFields[name], { requiredKeys: [REQUIRED_OWN[name]] }),
    })
    .filter(({ mobile, alternate }) => alternate === undefined || alternate[0] !== mobile[0])
    .map(({ name: leadName, mobile, alternate, email: address, ids, own }) => ({
      name: leadName,
      mobile_number: mobile[1],
      ...(alternate && { alternate_number: alternate[1] }),
      ...(address !== undefined && { email: address }),
      projectID: ids[0],
      campaignID: ids[1],
      ...own,
    }));

/** What contract section 2 makes of a valid body: the stored lead, less what the service assigns. */
const expectedLead = (name: EndpointName, body: Record<string, unknown>) => {
  const given = (value: unknown) => (typeof value === 'number' ? String(value) : typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
  const digits = (value: unknown) => String(value).replace(/\D/g, '').slice(-10);
  const own = Object.keys(ownFields[name]).filter((field) => !['unknown_field', 'form_id'].includes(field));
  const lead: Record<string, unknown> = {
    name: given(body.name),
    mobile_number: digits(body.mobile_number),
    ...(body.alternate_number !== undefined && { alternate_number: digits(body.alternate_number) }),
    ...(given(body.email) !== undefined && { email: given(body.email) }),
    projectID: given(body.projectID),
    campaignID: given(body.campaignID),
    source: name,
    sub_source: name === 'website' ? 'Skyline landing page' : name === 'social' ? given(body.platform) : null,
  };
  for (const field of own) if (field !== 'sub_source' && given(body[field]) !== undefined) lead[field] = given(body[field]);
  return lead;
};

/** Every message the contract gives for each status a valid key can meet here. */
const FIXED_MESSAGES: Record<number, readonly string[]> = {
  200: ['Lead created successfully'],
  400: ['Malformed JSON body', 'Request body must be a JSON object'],
  413: ['Payload too large'],
  415: ['Content-Type must be application/json'],
  422: ['Sub source not found', 'Project not found', 'Campaign not found'],
};

const expectContractAnswer = (answer: Answer) => {
  expect(Object.keys(FIXED_MESSAGES).map(Number)).toContain(answer.status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['x-request-id']).toBeTruthy();
  expect(answer.body.status).toBe(answer.status === 200);
  const errors = answer.body.errors as Record<string, unknown> | undefined;
  if (errors === undefined) {
    expect(FIXED_MESSAGES[answer.status]).toContain(answer.body.message);
    return;
  }
  // Only field validation carries `errors`: a 422 whose message is its first problem, in words.
  expect(answer.status).toBe(422);
  const lists = Object.values(errors);
  expect(lists.length).toBeGreaterThan(0);
  for (const messages of lists) {
    expect(Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string' && m.length > 0)).toBe(true);
  }
  expect(answer.body.message).toBe((lists[0] as string[])[0]);
};

const MOBILE = /^[6-9]\d{9}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LIMITS: Record<string, number> = {
  name: 200, projectID: 100, campaignID: 100, email: 254, sub_source: 200, platform: 200,
  profession: 200, location: 200, notes: 5000,
  utm_id: 500, utm_campaign: 500, utm_source: 500, utm_medium: 500, utm_term: 500, gclid: 500, fbclid: 500,
  social_campaign: 500, social_adset: 500, social_ad: 500,
};
const RECORD_FIELDS = ['id', 'name', 'mobile_number', 'email', 'alternate_number', 'projectID', 'campaignID', 'source', 'sub_source', 'is_repeated', 'parent_lead_id', 'created_at'];
const OWN_FIELDS: Record<EndpointName, readonly string[]> = {
  website: ['profession', 'location', 'notes', 'utm_id', 'utm_campaign', 'utm_source', 'utm_medium', 'utm_term', 'gclid', 'fbclid', 'visitor_ip'],
  portala: ['notes'],
  portalb: ['notes'],
  social: ['platform', 'profession', 'location', 'notes', 'social_campaign', 'social_adset', 'social_ad'],
};

/** Every rule of contract sections 2 and 4 a stored lead of this account must obey. */
const expectObeysContract = (lead: LeadRecord) => {
  expect(Object.getPrototypeOf(lead)).toBe(Object.prototype);
  expect(endpointNames).toContain(lead.source);
  const source = lead.source as EndpointName;
  for (const field of Object.keys(lead)) expect([...RECORD_FIELDS, ...OWN_FIELDS[source]]).toContain(field);
  for (const [field, value] of Object.entries(lead)) {
    if (typeof value !== 'string' || field === 'id' || field === 'created_at') continue;
    expect(value.length).toBeGreaterThan(0);
    expect(value).toBe(value.trim());
    if (LIMITS[field] !== undefined) expect(value.length).toBeLessThanOrEqual(LIMITS[field]!);
  }
  expect(typeof lead.name).toBe('string');
  expect(lead.mobile_number).toMatch(MOBILE);
  if (lead.alternate_number !== undefined) {
    expect(lead.alternate_number).toMatch(MOBILE);
    expect(lead.alternate_number).not.toBe(lead.mobile_number);
  }
  if (lead.email !== undefined) expect(lead.email).toMatch(EMAIL);
  expect([['PRJ-1', 'CMP-1'], ['1001', '2002']]).toContainEqual([lead.projectID, lead.campaignID]);
  if (source === 'website') {
    expect(lead.sub_source).toBe('Skyline landing page');
    if (lead.visitor_ip !== undefined) expect(isIP(String(lead.visitor_ip))).not.toBe(0);
  } else if (source === 'social') {
    expect(['fb', 'ig', 'wp']).toContain(lead.sub_source);
    expect(lead.platform).toBe(lead.sub_source);
  } else {
    expect(lead.sub_source).toBeNull();
    expect(typeof lead.notes).toBe('string');
  }
  expect(typeof lead.is_repeated).toBe('boolean');
  expect(lead.parent_lead_id).toBeNull(); // the account's setting is Create
  expect(new Date(lead.created_at).toISOString()).toBe(lead.created_at);
};

describe.each(endpointNames)('hostile requests to %s', (name) => {
  it(`answer with the contract's exact message for their status, store only valid leads, and take every valid one (${RUNS} bodies)`, async () => {
    let valid = 0;
    const request = fc.oneof(
      { arbitrary: fc.record({ body: rawBody, type: contentType, keyHeader: keyHeaderName, lead: fc.constant(undefined) }), weight: 3 },
      { arbitrary: fc.record({ lead: validLead(name), type: jsonContentType, keyHeader: keyHeaderName }).map((r) => ({ ...r, body: JSON.stringify(r.lead) })), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(request, async ({ body, type, keyHeader, lead }) => {
        const answer = await service.call(name, { rawBody: body, headers: { 'content-type': type, [keyHeader]: apiKey } });
        expectContractAnswer(answer);
        if (Buffer.byteLength(body) > 65_536) expect(answer.status).toBe(413);
        else if (type === 'text/plain' || type === 'application/x-www-form-urlencoded') expect(answer.status).toBe(415);
        if (lead) {
          valid += 1;
          expect([answer.status, answer.body.errors]).toEqual([200, undefined]);
          if (name !== 'social') {
            const { id, created_at, is_repeated, parent_lead_id, ...rest } = answer.body.data;
            expect(rest).toEqual(expectedLead(name, lead));
            expect([typeof id, typeof created_at, typeof is_repeated, parent_lead_id]).toEqual(['string', 'string', 'boolean', null]);
          }
        }
        if (answer.status === 200 && answer.body.data) expectObeysContract(answer.body.data);
      }),
      { numRuns: RUNS },
    );
    expect(valid).toBeGreaterThan(RUNS / 10);
    const stored = await service.repository.leads.listLeads('acc-fuzz', ['PRJ-1', '1001']);
    const mine = stored.filter((lead) => lead.source === name);
    expect(mine.length).toBeGreaterThanOrEqual(valid);
    for (const lead of stored) expectObeysContract(lead);
    expect(await service.repository.leads.checkIntegrity()).toEqual([]);
    expect(JSON.stringify(service.logs)).not.toContain(apiKey);
  }, 120_000);
});
