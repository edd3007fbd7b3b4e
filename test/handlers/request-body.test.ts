import { beforeAll, describe, expect, it } from '@jest/globals';
import { MAX_JSON_DEPTH } from '../../shared/http/middleware/json-object-body.ts';
import { endpointNames, testService, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-a', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
  apiKey = await service.issueKey('acc-a');
});

/** A valid body padded with an ignored or rejected field to exactly `bytes` bytes. */
const bodyOfSize = (name: (typeof endpointNames)[number], bytes: number) => {
  const base = JSON.stringify({ ...validBody(name, project), padding: '' });
  return base.replace('"padding":""', `"padding":"${'x'.repeat(bytes - base.length)}"`);
};

describe.each(endpointNames)('reading the body on %s', (name) => {
  it('reads a body of exactly 64 KiB', async () => {
    const body = bodyOfSize(name, 65_536);
    expect(Buffer.byteLength(body)).toBe(65_536);
    const answer = await service.call(name, { apiKey, rawBody: body });
    // Portals refuse the extra field (422, naming it); the others ignore it: either way the body was read.
    if (name === 'portala' || name === 'portalb') expect([answer.status, Object.keys(answer.body.errors ?? {})]).toEqual([422, ['padding']]);
    else expect(answer.status).toBe(200);
  });

  it('answers 413 Payload too large one byte over 64 KiB', async () => {
    const answer = await service.call(name, { apiKey, rawBody: bodyOfSize(name, 65_537) });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ status: false, message: 'Payload too large' });
  });

  it('answers 415 for a Content-Type that is not JSON', async () => {
    const answer = await service.call(name, { apiKey, body: validBody(name, project), headers: { 'content-type': 'text/plain' } });
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual({ status: false, message: 'Content-Type must be application/json' });
  });

  it.each(['application/json; charset=utf-8', 'application/vnd.api+json', 'Application/JSON'])('accepts Content-Type %s', async (contentType) => {
    const answer = await service.call(name, { apiKey, body: validBody(name, project), headers: { 'content-type': contentType } });
    expect(answer.status).toBe(200);
  });

  it('accepts a body without Content-Type when it is a JSON object', async () => {
    const answer = await service.call(name, { apiKey, body: validBody(name, project), headers: { 'content-type': undefined } });
    expect(answer.status).toBe(200);
  });

  it.each([
    ['not JSON', '{"name": '],
    ['empty', ''],
  ])('answers 400 Malformed JSON body for a body that is %s', async (_, rawBody) => {
    const answer = await service.call(name, { apiKey, rawBody });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ status: false, message: 'Malformed JSON body' });
  });

  it('answers 400 Malformed JSON body when there is no body', async () => {
    const answer = await service.call(name, { apiKey });
    expect(answer).toMatchObject({ status: 400, body: { message: 'Malformed JSON body' } });
  });

  it.each([['[]'], ['"lead"'], ['42'], ['null'], ['true']])('answers 400 Request body must be a JSON object for %s', async (rawBody) => {
    const answer = await service.call(name, { apiKey, rawBody });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ status: false, message: 'Request body must be a JSON object' });
  });

  it(`reads a body nested ${MAX_JSON_DEPTH} levels deep, and answers 400 Malformed JSON body to one level deeper, whatever the stack`, async () => {
    // A field holding arrays: ignored on website and social, refused by name on the portals; either way read.
    const nested = (depth: number) => JSON.stringify({ ...validBody(name, project), extra: 0 }).replace('"extra":0', `"extra":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}`);
    const deepest = await service.call(name, { apiKey, rawBody: nested(MAX_JSON_DEPTH) });
    expect(deepest.status).toBe(name === 'portala' || name === 'portalb' ? 422 : 200);
    for (const depth of [MAX_JSON_DEPTH + 1, 3_000, 10_000]) {
      const answer = await service.call(name, { apiKey, rawBody: nested(depth) });
      expect([answer.status, answer.body]).toEqual([400, { status: false, message: 'Malformed JSON body' }]);
    }
  });

  it('reads a base64-encoded body as API Gateway sends binary ones', async () => {
    const answer = await service.call(name, { apiKey, rawBody: Buffer.from(JSON.stringify(validBody(name, project))) });
    expect(answer.status).toBe(200);
  });

  it('checks size before Content-Type, and Content-Type before JSON', async () => {
    const big = await service.call(name, { apiKey, rawBody: 'x'.repeat(70_000), headers: { 'content-type': 'text/plain' } });
    expect(big.status).toBe(413);
    const plain = await service.call(name, { apiKey, rawBody: '{broken', headers: { 'content-type': 'text/plain' } });
    expect(plain.status).toBe(415);
  });

  it.each([
    ['a top-level __proto__', (body: string) => body.replace(/}$/, ',"__proto__":{"is_repeated":true,"parent_lead_id":"01POISON","source":"poison","email":"poison@example.com"}}')],
    ['a nested constructor.prototype', (body: string) => body.replace(/}$/, ',"nested":{"constructor":{"prototype":{"is_repeated":true,"source":"poison"}}}}')],
    ['a top-level constructor and prototype', (body: string) => body.replace(/}$/, ',"constructor":{"name":"poison"},"prototype":{"is_repeated":true}}')],
  ])('never lets %s change a stored or answered field', async (_, poison) => {
    const clean = validBody(name, project);
    const answer = await service.call(name, { apiKey, rawBody: poison(JSON.stringify(clean)) });
    // The contract lets the service refuse such a body (400 or 422, in the envelope) or take it.
    const stored = (await service.repository.leadArchive.listLeads('acc-a', ['PRJ-1'])).filter((lead) => lead.mobile_number === clean.mobile_number);
    if (answer.status === 200) {
      expect(stored).toHaveLength(1);
      const lead = stored[0]!;
      if (answer.body.data) expect(answer.body.data).toEqual(lead);
      expect(lead).toMatchObject({ is_repeated: false, parent_lead_id: null, source: name });
      expect(lead).not.toHaveProperty('email');
      expect(Object.getPrototypeOf(lead)).toBe(Object.prototype);
      expect(Object.keys(lead)).not.toEqual(expect.arrayContaining(['__proto__']));
    } else {
      expect([400, 422]).toContain(answer.status);
      expect(answer.body).toMatchObject({ status: false, message: expect.any(String) });
      expect(stored).toEqual([]);
      // Nothing of the refused body is stored: the same lead without the key is a new original.
      const retry = await service.call(name, { apiKey, body: clean });
      expect(retry.status).toBe(200);
      const [lead] = (await service.repository.leadArchive.listLeads('acc-a', ['PRJ-1'])).filter((l) => l.mobile_number === clean.mobile_number);
      expect(lead).toMatchObject({ is_repeated: false, parent_lead_id: null, source: name });
      expect(lead).not.toHaveProperty('email');
    }
    // And no object of the process has gained the poisoned members.
    expect(({} as Record<string, unknown>).is_repeated).toBeUndefined();
    expect(({} as Record<string, unknown>).source).toBeUndefined();
  });
});
