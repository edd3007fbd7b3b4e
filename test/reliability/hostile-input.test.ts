import { beforeAll, describe, expect, it } from '@jest/globals';
import { isIP } from 'node:net';
import fc from 'fast-check';
import type { LeadRecord } from '../../shared/domain/lead.ts';
import type { EndpointName } from '../../shared/routes.ts';
import { toAsciiDigits } from '../../shared/domain/mobile.ts';
import { endpointNames, testService, type Answer, type TestService } from '../support/service.ts';

/**
 * Property-based fuzzing of the four endpoints with hostile bodies and headers, mixed with valid leads
 * in every shape senders use. Each body is first classified by a reference of contract sections 1
 * and 2 written here (`classify`): the answer must be exactly that status and message, with exactly
 * those `errors` keys, or 200 with exactly that lead. Every valid lead is taken, the stored leads are
 * exactly the ones answered 200, and anything stored obeys every rule of sections 2 and 4.
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

/**
 * The reference classifier: what contract sections 1 and 2 say one body gets, worked out here on its
 * own (not by the service's code): its status, its exact message, the keys of `errors` in order, or for
 * a 200 the exact lead. The account (beforeAll) is under Create, with projects PRJ-1/CMP-1 and
 * 1001/2002, website sub source "Skyline landing page" and social fb, ig, wp.
 */
type Expected =
  | { readonly status: 200; readonly lead: Record<string, unknown> }
  | { readonly status: number; readonly message: string; readonly errors?: readonly string[] };

/** A JSON number as written, so `9.8e9` is told from `9800000000` (where Node can say: source text access). */
class Written {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}
const SOURCE_TEXT = JSON.parse('1', (_key, value, context?: { source?: string }) => context?.source ?? value) === '1';
/** The service's bound on nesting (shared/http/middleware/json-object-body.ts): deeper is malformed. */
const MAX_DEPTH = 32;
const depthOf = (text: string) => {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') deepest = Math.max(deepest, (depth += 1));
    else if (char === '}' || char === ']') depth -= 1;
  }
  return deepest;
};
const JSON_TYPE = /^application\/(json|[^/;\s]+\+json)\s*(;.*)?$/i;
const CONTRACT_EMAIL = /^[\w+-]+(?:\.[\w+-]+)*@[\da-zA-Z]+(?:[.-][\da-zA-Z]+)*\.[a-zA-Z]{2,}$/u;
const mobileOf = (text: string) => {
  if (!/^[\p{Nd} +\-().]+$/u.test(text)) return undefined;
  const digits = toAsciiDigits(text).replace(/\D/g, '');
  return digits.length >= 10 && digits.length <= 15 && /^[6-9]/.test(digits.slice(-10)) ? digits.slice(-10) : undefined;
};

type Rule = { kind: 'text'; max?: number; required: boolean } | { kind: 'id' } | { kind: 'mobile'; required: boolean } | { kind: 'email' } | { kind: 'ip' };
const textRule = (max: number | undefined, required = false): Rule => ({ kind: 'text', ...(max !== undefined && { max }), required });
const COMMON: Record<string, Rule> = {
  name: textRule(200, true),
  mobile_number: { kind: 'mobile', required: true },
  email: { kind: 'email' },
  alternate_number: { kind: 'mobile', required: false },
  projectID: { kind: 'id' },
  campaignID: { kind: 'id' },
};
const RULES: Record<EndpointName, Record<string, Rule>> = {
  website: {
    ...COMMON, sub_source: textRule(200, true), profession: textRule(200), location: textRule(200), notes: textRule(5000),
    utm_id: textRule(500), utm_campaign: textRule(500), utm_source: textRule(500), utm_medium: textRule(500), utm_term: textRule(500),
    gclid: textRule(500), fbclid: textRule(500), visitor_ip: { kind: 'ip' },
  },
  portala: { ...COMMON, notes: textRule(5000, true) },
  portalb: { ...COMMON, notes: textRule(5000, true) },
  social: {
    ...COMMON, platform: textRule(undefined, true), profession: textRule(200), location: textRule(200), notes: textRule(5000),
    social_campaign: textRule(500), social_adset: textRule(500), social_ad: textRule(500),
  },
};
const NUMERIC = new Set(['mobile_number', 'alternate_number', 'projectID', 'campaignID']);
const CAMPAIGNS: Record<string, string> = { 'PRJ-1': 'CMP-1', '1001': '2002' };
const SUB_SOURCES: Record<EndpointName, readonly string[] | undefined> = { website: ['Skyline landing page'], social: ['fb', 'ig', 'wp'], portala: undefined, portalb: undefined };

/** The problems of one field's value (already trimmed; undefined when absent), in the contract's words. */
const problemsOf = (field: string, rule: Rule, value: unknown): string[] => {
  if (value === undefined) return rule.kind === 'text' || rule.kind === 'mobile' ? (rule.required ? [`${field} is required`] : []) : rule.kind === 'id' ? [`${field} is required`] : [];
  if (typeof value !== 'string') return [`${field} must be ${NUMERIC.has(field) ? 'text or a whole number' : 'text'}`];
  switch (rule.kind) {
    case 'text':
      return rule.max !== undefined && value.length > rule.max ? [`${field} must be at most ${rule.max.toLocaleString('en-US')} characters`] : [];
    case 'id':
      return value.length > 100 ? [`${field} must be at most 100 characters`] : [];
    case 'mobile':
      return mobileOf(value) === undefined ? [`${field} must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9`] : [];
    case 'email':
      return [...(value.length > 254 ? ['email must be at most 254 characters'] : []), ...(CONTRACT_EMAIL.test(value) ? [] : ['email must be a valid email address'])];
    case 'ip':
      return isIP(value) === 0 ? ['visitor_ip must be a valid IPv4 or IPv6 address'] : [];
  }
};

const failure = (status: number, message: string): Expected => ({ status, message });

const classify = (name: EndpointName, raw: string, type: string | undefined, stored: ReadonlySet<string>): Expected => {
  if (Buffer.byteLength(raw) > 65_536) return failure(413, 'Payload too large');
  if (type !== undefined && type.trim() !== '' && !JSON_TYPE.test(type.trim())) return failure(415, 'Content-Type must be application/json');
  // What the service receives: the body as UTF-8 (a lone surrogate arrives as U+FFFD).
  const received = Buffer.from(raw, 'utf8').toString('utf8');
  if (depthOf(received) > MAX_DEPTH) return failure(400, 'Malformed JSON body');
  const forbidden = new Set<string>();
  let body: unknown;
  try {
    body = JSON.parse(received, (key, value, context?: { source?: string }) => {
      if (['__proto__', 'constructor', 'prototype'].includes(key)) forbidden.add(key);
      return typeof value === 'number' ? new Written(SOURCE_TEXT ? context!.source! : String(value)) : value;
    });
  } catch {
    return failure(400, 'Malformed JSON body');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || body instanceof Written) return failure(400, 'Request body must be a JSON object');
  if (forbidden.size > 0) return { status: 422, message: `${[...forbidden][0]} is not an allowed field name`, errors: [...forbidden] };

  const fields = body as Record<string, unknown>;
  const rules = RULES[name];
  const values: Record<string, unknown> = {};
  const problems: [string, string[]][] = [];
  for (const [field, rule] of Object.entries(rules)) {
    let value = Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (value === null) value = undefined;
    else if (typeof value === 'string') value = value.trim() === '' ? undefined : value.trim();
    else if (value instanceof Written && NUMERIC.has(field) && /^\d+$/.test(value.text)) value = value.text;
    const found = problemsOf(field, rule, value);
    if (found.length > 0) problems.push([field, found]);
    else if (value !== undefined) values[field] = rule.kind === 'mobile' ? mobileOf(value as string) : value;
  }
  if (problems.length === 0 && values.alternate_number !== undefined && values.alternate_number === values.mobile_number) {
    problems.push(['alternate_number', ['alternate_number must differ from mobile_number']]);
  }
  // Portals refuse every field they do not take; the others ignore them.
  if (name === 'portala' || name === 'portalb') {
    for (const field of Object.keys(fields)) if (!Object.hasOwn(rules, field)) problems.push([field, [`${field} is not accepted on this endpoint`]]);
  }
  if (problems.length > 0) {
    // `errors` is a JSON object: a field named like an array index ("0") comes first in it whatever
    // its place in the list, and the message is the first entry of `errors` as sent.
    const errors = Object.fromEntries(problems);
    const first = Object.keys(errors)[0]!;
    return { status: 422, message: errors[first]![0]!, errors: Object.keys(errors) };
  }

  const subSource = name === 'website' ? values.sub_source : name === 'social' ? values.platform : null;
  if (SUB_SOURCES[name] && !SUB_SOURCES[name]!.includes(subSource as string)) return failure(422, 'Sub source not found');
  if (!Object.hasOwn(CAMPAIGNS, values.projectID as string)) return failure(422, 'Project not found');
  if (CAMPAIGNS[values.projectID as string] !== values.campaignID) return failure(422, 'Campaign not found');
  const { sub_source: _given, ...rest } = values;
  return {
    status: 200,
    lead: {
      ...rest,
      source: name,
      sub_source: subSource,
      // The account is under Create: a second lead for a mobile in a project is a repeat, unlinked.
      is_repeated: stored.has(`${values.projectID}|${values.mobile_number}`),
      parent_lead_id: null,
    },
  };
};

/** The answer is exactly the one the classifier expects, in the contract's envelope. */
const expectAnswer = (answer: Answer, expected: Expected) => {
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['x-request-id']).toBeTruthy();
  if ('lead' in expected) {
    expect([answer.status, answer.body.status, answer.body.message, answer.body.errors]).toEqual([200, true, 'Lead created successfully', undefined]);
    return;
  }
  expect({ status: answer.status, message: answer.body.message, errors: answer.body.errors && Object.keys(answer.body.errors), ok: answer.body.status }).toEqual({
    status: expected.status,
    message: expected.message,
    errors: expected.errors,
    ok: false,
  });
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
    /** Leads answered 200 by this property, as answered; and the (project, mobile) pairs stored so far. */
    const answered: Record<string, unknown>[] = [];
    let answered200 = 0;
    const stored = new Set((await service.repository.leadArchive.listLeads('acc-fuzz', ['PRJ-1', '1001'])).map((lead) => `${lead.projectID}|${lead.mobile_number}`));
    await fc.assert(
      fc.asyncProperty(request, async ({ body, type, keyHeader, lead }) => {
        const expected = classify(name, body, type, stored);
        const answer = await service.call(name, { rawBody: body, headers: { 'content-type': type, [keyHeader]: apiKey } });
        expectAnswer(answer, expected);
        if (lead) {
          valid += 1;
          expect(expected.status).toBe(200);
        }
        if ('lead' in expected) {
          answered200 += 1;
          stored.add(`${expected.lead.projectID}|${expected.lead.mobile_number}`);
          if (name !== 'social') {
            const { id, created_at, ...rest } = answer.body.data;
            expect(rest).toEqual(expected.lead);
            expect([typeof id, typeof created_at]).toEqual(['string', 'string']);
            expectObeysContract(answer.body.data);
            answered.push(answer.body.data);
          }
        }
      }),
      { numRuns: RUNS },
    );
    expect(valid).toBeGreaterThan(RUNS / 10);
    // Stored are exactly the leads answered 200, as answered (the social endpoint answers none: by count).
    const all = await service.repository.leadArchive.listLeads('acc-fuzz', ['PRJ-1', '1001']);
    const mine = all.filter((lead) => lead.source === name);
    if (name === 'social') expect(mine).toHaveLength(answered200);
    else expect(mine).toEqual([...answered].sort((a, b) => ((a.id as string) < (b.id as string) ? -1 : 1)));
    for (const lead of all) expectObeysContract(lead);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
    expect(JSON.stringify(service.logs)).not.toContain(apiKey);
  }, 120_000);
});
