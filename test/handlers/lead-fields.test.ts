import { beforeAll, describe, expect, it } from '@jest/globals';
import { endpointNames, testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-a', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb', 'ig', 'wp'] });
  apiKey = await service.issueKey('acc-a');
});

const storedLeads = () => service.repository.leadArchive.listLeads('acc-a', ['PRJ-1']);

describe.each(endpointNames)('field validation on %s', (name) => {
  it('answers 422 listing every missing required field, the first one in the message', async () => {
    const before = (await storedLeads()).length;
    const answer = await service.call(name, { apiKey, body: {} });
    expect(answer.status).toBe(422);
    expect(answer.body.status).toBe(false);
    expect(answer.body.message).toBe('name is required');
    expect(Object.keys(answer.body.errors)).toEqual(expect.arrayContaining(['name', 'mobile_number', 'projectID', 'campaignID']));
    expect(answer.body.errors.mobile_number).toEqual(['mobile_number is required']);
    expect((await storedLeads()).length).toBe(before);
  });

  it('reads "" and null in required fields as missing, and whitespace-only text as empty', async () => {
    const answer = await service.call(name, { apiKey, body: validBody(name, project, { name: '   ', projectID: null, campaignID: '' }) });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toMatchObject({ name: ['name is required'], projectID: ['projectID is required'], campaignID: ['campaignID is required'] });
  });

  it('refuses a malformed mobile number', async () => {
    const answer = await service.call(name, { apiKey, body: validBody(name, project, { mobile_number: '5876543210' }) });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe('mobile_number must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9');
    expect(Object.keys(answer.body.errors)).toEqual(['mobile_number']);
  });

  it('refuses an alternate number equal to the mobile number once both are normalised', async () => {
    const answer = await service.call(name, { apiKey, body: validBody(name, project, { mobile_number: '9876543210', alternate_number: '+91 98765 43210' }) });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual({ alternate_number: ['alternate_number must differ from mobile_number'] });
  });

  it('refuses an invalid e-mail and one over 254 characters', async () => {
    const bad = await service.call(name, { apiKey, body: validBody(name, project, { email: 'not-an-email' }) });
    expect(bad.body.errors.email).toEqual(['email must be a valid email address']);
    const long = await service.call(name, { apiKey, body: validBody(name, project, { email: `${'a'.repeat(250)}@example.com` }) });
    expect(long.body.errors.email).toContain('email must be at most 254 characters');
  });

  it('holds names to 200 characters and ids to 100', async () => {
    const ok = await service.call(name, { apiKey, body: validBody(name, project, { name: 'n'.repeat(200) }) });
    expect(ok.status).toBe(200);
    const answer = await service.call(name, { apiKey, body: validBody(name, project, { name: 'n'.repeat(201), projectID: 'p'.repeat(101) }) });
    expect(answer.body.errors).toMatchObject({ name: ['name must be at most 200 characters'], projectID: ['projectID must be at most 100 characters'] });
  });

  it.each([
    ['a decimal', '9876543210.5'],
    ['a decimal that looks whole', '9876543210.0'],
    ['a negative number', '-9876543210'],
    ['an exponent', '9.87654321e9'],
  ])('refuses %s where the mobile number goes', async (_, literal) => {
    const body = JSON.stringify(validBody(name, project)).replace(/"mobile_number":"\d+"/, `"mobile_number":${literal}`);
    const answer = await service.call(name, { apiKey, rawBody: body });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['mobile_number']);
  });

  it('refuses a number where text goes', async () => {
    const answer = await service.call(name, { apiKey, body: validBody(name, project, { name: 42 }) });
    expect(answer.body.errors).toEqual({ name: ['name must be text'] });
  });

  it('refuses a JSON number id with an exponent', async () => {
    const body = JSON.stringify(validBody(name, project)).replace('"projectID":"PRJ-1"', '"projectID":1e3');
    const answer = await service.call(name, { apiKey, rawBody: body });
    expect(answer.body.errors).toEqual({ projectID: ['projectID must be text or a whole number'] });
  });
});

describe('fields of the website endpoint', () => {
  it('requires a sub source', async () => {
    const answer = await service.call('website', { apiKey, body: validBody('website', project, { sub_source: undefined }) });
    expect(answer.body.errors).toEqual({ sub_source: ['sub_source is required'] });
  });

  it.each(['203.0.113.7', '2001:db8::1', '::ffff:203.0.113.7'])('accepts the visitor IP %s', async (visitor_ip) => {
    const answer = await service.call('website', { apiKey, body: validBody('website', project, { visitor_ip }) });
    expect(answer.status).toBe(200);
  });

  it('refuses a visitor IP that is not an IPv4 or IPv6 address', async () => {
    const answer = await service.call('website', { apiKey, body: validBody('website', project, { visitor_ip: '999.1.1.1' }) });
    expect(answer.body.errors).toEqual({ visitor_ip: ['visitor_ip must be a valid IPv4 or IPv6 address'] });
  });

  it('holds notes to 5,000 characters and UTM fields to 500', async () => {
    const answer = await service.call('website', { apiKey, body: validBody('website', project, { notes: 'n'.repeat(5001), utm_term: 'u'.repeat(501) }) });
    expect(answer.body.errors).toEqual({ notes: ['notes must be at most 5,000 characters'], utm_term: ['utm_term must be at most 500 characters'] });
  });

  it('ignores fields it does not know', async () => {
    const answer = await service.call('website', { apiKey, body: validBody('website', project, { campaign_name: 'x', nested: { a: 1 } }) });
    expect(answer.status).toBe(200);
    expect(answer.body.data).not.toHaveProperty('campaign_name');
  });
});

describe.each(['portala', 'portalb'] as const)('fields of %s', (name) => {
  it('requires notes', async () => {
    const answer = await service.call(name, { apiKey, body: validBody(name, project, { notes: '' }) });
    expect(answer.body.errors).toEqual({ notes: ['notes is required'] });
  });

  it('refuses every field beyond the common ones and notes, one entry each', async () => {
    const answer = await service.call(name, { apiKey, body: validBody(name, project, { utm_source: 'x', sub_source: 'y' }) });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual({
      utm_source: ['utm_source is not accepted on this endpoint'],
      sub_source: ['sub_source is not accepted on this endpoint'],
    });
    expect(answer.body.message).toBe('utm_source is not accepted on this endpoint');
  });
});

describe('fields of the social endpoint', () => {
  it('requires a platform', async () => {
    const answer = await service.call('social', { apiKey, body: validBody('social', project, { platform: ' ' }) });
    expect(answer.body.errors).toEqual({ platform: ['platform is required'] });
  });

  it('ignores fields it does not know', async () => {
    const answer = await service.call('social', { apiKey, body: validBody('social', project, { form_id: '123' }) });
    expect(answer.status).toBe(200);
  });

  it('accepts a mobile number in Devanagari digits', async () => {
    const answer = await service.call('social', { apiKey, body: validBody('social', project, { mobile_number: '+९१ ९८७६५ ००००१' }) });
    expect(answer.status).toBe(200);
    expect((await storedLeads()).some((lead) => lead.mobile_number === '9876500001')).toBe(true);
  });
});

describe('a mobile number sent as a JSON number', () => {
  it('is read as its digits', async () => {
    const mobile = uniqueMobile();
    const body = JSON.stringify(validBody('portala', project)).replace(/"mobile_number":"\d+"/, `"mobile_number":${mobile}`);
    const answer = await service.call('portala', { apiKey, rawBody: body });
    expect(answer.body.data.mobile_number).toBe(mobile);
  });
});
