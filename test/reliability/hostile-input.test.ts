import { beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { LeadRecord } from '../../shared/domain/lead.ts';
import { endpointNames, testService, type Answer, type TestService } from '../support/service.ts';

/**
 * Property-based fuzzing of the four endpoints with hostile bodies and headers. Whatever arrives, the
 * answer is the contract's envelope, never a 5xx, and anything stored obeys the contract's rules.
 */
let service: TestService;
let apiKey: string;
const RUNS = Number(process.env.FUZZ_RUNS ?? 2_500); // per endpoint: 10,000 bodies a run

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
const keyHeaderName = fc.constantFrom('x-api-key', 'X-Api-Key', 'X-API-KEY', 'x-API-key');

const isEnvelope = (answer: Answer) =>
  typeof answer.body === 'object' &&
  typeof answer.body.status === 'boolean' &&
  typeof answer.body.message === 'string' &&
  answer.body.message.length > 0 &&
  (answer.body.errors === undefined ||
    Object.values(answer.body.errors).every((messages) => Array.isArray(messages) && messages.every((m) => typeof m === 'string')));

const obeysContract = (lead: LeadRecord) => {
  const text = (value: unknown, max: number) => typeof value === 'string' && value.length >= 1 && value.length <= max && value === value.trim();
  return (
    text(lead.name, 200) &&
    /^[6-9]\d{9}$/.test(lead.mobile_number) &&
    (lead.alternate_number === undefined || (/^[6-9]\d{9}$/.test(lead.alternate_number) && lead.alternate_number !== lead.mobile_number)) &&
    (lead.email === undefined || text(lead.email, 254)) &&
    ['PRJ-1', '1001'].includes(lead.projectID) &&
    ['CMP-1', '2002'].includes(lead.campaignID) &&
    (lead.notes === undefined || text(lead.notes, 5000)) &&
    Object.getPrototypeOf(lead) === Object.prototype &&
    !Object.hasOwn(lead, '__proto__') &&
    !Object.hasOwn(lead, 'constructor')
  );
};

describe.each(endpointNames)('hostile requests to %s', (name) => {
  it(`always answer with the envelope, never a 5xx, and store only valid leads (${RUNS} bodies)`, async () => {
    await fc.assert(
      fc.asyncProperty(rawBody, contentType, keyHeaderName, async (body, type, keyHeader) => {
        const answer = await service.call(name, { rawBody: body, headers: { 'content-type': type, [keyHeader]: apiKey } });
        expect(answer.status).toBeLessThan(500);
        expect(isEnvelope(answer)).toBe(true);
        expect(answer.headers['x-request-id']).toBeTruthy();
        if (answer.status === 200 && answer.body.data) expect(obeysContract(answer.body.data)).toBe(true);
      }),
      { numRuns: RUNS },
    );
    const stored = await service.repository.leads.listLeads('acc-fuzz', ['PRJ-1', '1001']);
    for (const lead of stored) expect(obeysContract(lead)).toBe(true);
    expect(await service.repository.leads.checkIntegrity()).toEqual([]);
    expect(JSON.stringify(service.logs)).not.toContain(apiKey);
  }, 120_000);
});
