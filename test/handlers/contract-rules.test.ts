/**
 * Rules of CONTRACT.md sections 1 and 2 that lead senders rely on, each pinned exactly: the JSON
 * content type of every answer, the order of the checks, 503 with Retry-After and CORS on every
 * failure of the website endpoint, alternate numbers, trimming before every look-up, and what the
 * social endpoint does not store.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { EndpointName } from '../../shared/routes.ts';
import { failFirst, injectFaults, namedError } from '../support/faults.ts';
import { endpointNames, testService, uniqueMobile, validBody, type Answer, type TestService } from '../support/service.ts';

const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const JSON_TYPE = 'application/json; charset=utf-8';
const ORIGIN = 'https://www.example-realty.in';

let service: TestService;
let apiKey: string;
let orphanKey: string;
let inactiveKey: string;

const account = { id: 'acc-rules', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] }, website: ['Skyline landing page'], social: ['fb', 'ig'] };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount(account);
  apiKey = await service.issueKey('acc-rules');
  orphanKey = await service.issueKey('acc-that-does-not-exist');
  inactiveKey = await service.issueKey('acc-rules', { active: false });
});

/** A service whose lead writes fail the way `error` says, from the first request on. */
const failingService = async (error: () => Error) => {
  const faults = failFirst('TransactWriteItemsCommand', 1_000, error);
  const failing = await testService({ instrument: (client) => injectFaults(client, faults.fault) });
  await failing.seedAccount(account);
  const key = await failing.issueKey('acc-rules');
  faults.arm();
  return { service: failing, apiKey: key };
};

const throttled = () => namedError('ThrottlingException', 'Rate of requests exceeds the allowed throughput', { $metadata: { httpStatusCode: 400 } });
const unexpected = () => namedError('ValidationException', 'One or more parameter values were invalid', { $metadata: { httpStatusCode: 400 } });

const expectEnvelope = (answer: Answer, status: number, message: string) => {
  expect([answer.status, answer.body.status, answer.body.message]).toEqual([status, false, message]);
  expect(answer.headers['content-type']).toBe(JSON_TYPE);
  expect(answer.headers['x-request-id']).toBeTruthy();
};

describe.each(endpointNames)('every failure answer of %s', (name) => {
  const body = () => validBody(name, project);
  const failures: [string, number, string, () => Promise<Answer>][] = [
    ['no key', 401, 'API Key missing', () => service.call(name, { body: body() })],
    ['an empty key', 401, 'API Key missing', () => service.call(name, { apiKey: '', body: body() })],
    ['an unknown key', 401, 'Invalid API credentials', () => service.call(name, { apiKey: 'not-a-key', body: body() })],
    ['an inactive key', 401, 'Invalid API credentials', () => service.call(name, { apiKey: inactiveKey, body: body() })],
    ['a key of no account', 404, 'Client not found', () => service.call(name, { apiKey: orphanKey, body: body() })],
    ['a body over 64 KiB', 413, 'Payload too large', () => service.call(name, { apiKey, rawBody: 'x'.repeat(65_537) })],
    ['a text/plain body', 415, 'Content-Type must be application/json', () => service.call(name, { apiKey, rawBody: '{}', headers: { 'content-type': 'text/plain' } })],
    ['broken JSON', 400, 'Malformed JSON body', () => service.call(name, { apiKey, rawBody: '{"name":' })],
    ['a JSON array', 400, 'Request body must be a JSON object', () => service.call(name, { apiKey, rawBody: '[]' })],
    ['a missing name', 422, 'name is required', () => service.call(name, { apiKey, body: { ...body(), name: undefined } })],
    ['an unknown project', 422, 'Project not found', () => service.call(name, { apiKey, body: validBody(name, { projectID: 'PRJ-404', campaignID: 'CMP-1' }) })],
    ['an unknown campaign', 422, 'Campaign not found', () => service.call(name, { apiKey, body: validBody(name, { projectID: 'PRJ-1', campaignID: 'CMP-404' }) })],
  ];

  it.each(failures)('is JSON in the envelope, with x-request-id, for %s (%i %s)', async (_, status, message, send) => {
    expectEnvelope(await send(), status, message);
  });

  it('is JSON in the envelope for a duplicate under Ignore', async () => {
    const lead = validBody(name, project);
    expect((await service.call(name, { apiKey, body: lead })).status).toBe(200);
    expectEnvelope(await service.call(name, { apiKey, body: lead }), 422, 'Lead already exists');
  });
});

describe('the order of the checks', () => {
  const oversized = 'x'.repeat(70_000);
  it.each(endpointNames)('answers 401 and 404 on %s before the size, the Content-Type and the JSON', async (name) => {
    for (const [rawBody, contentType] of [
      [oversized, 'application/json'],
      ['{"name":"a"}', 'text/plain'],
      ['{broken', 'application/json'],
      ['[1]', 'application/json'],
    ] as const) {
      const headers = { 'content-type': contentType };
      expectEnvelope(await service.call(name, { rawBody, headers }), 401, 'API Key missing');
      expectEnvelope(await service.call(name, { rawBody, headers, apiKey: '' }), 401, 'API Key missing');
      expectEnvelope(await service.call(name, { rawBody, headers, apiKey: 'not-a-key' }), 401, 'Invalid API credentials');
      expectEnvelope(await service.call(name, { rawBody, headers, apiKey: orphanKey }), 404, 'Client not found');
    }
  });

  describe.each(['website', 'social'] as const)('on %s, with a lead whose mobile the project already has', (name) => {
    let mobile: string;
    beforeAll(async () => {
      mobile = uniqueMobile();
      expect((await service.call(name, { apiKey, body: validBody(name, project, { mobile_number: mobile }) })).status).toBe(200);
    });
    const otherSubSource = name === 'website' ? { sub_source: 'Another page' } : { platform: 'wp' };

    it('answers Sub source not found, not Lead already exists', async () => {
      const answer = await service.call(name, { apiKey, body: validBody(name, project, { mobile_number: mobile, ...otherSubSource }) });
      expectEnvelope(answer, 422, 'Sub source not found');
    });

    it('answers Campaign not found, not Lead already exists', async () => {
      const answer = await service.call(name, { apiKey, body: validBody(name, { projectID: 'PRJ-1', campaignID: 'CMP-2' }, { mobile_number: mobile }) });
      expectEnvelope(answer, 422, 'Campaign not found');
    });

    it('answers the sub source before the project, and the project before the campaign', async () => {
      const both = await service.call(name, { apiKey, body: validBody(name, { projectID: 'PRJ-404', campaignID: 'CMP-404' }, { mobile_number: mobile, ...otherSubSource }) });
      expectEnvelope(both, 422, 'Sub source not found');
      const projectAndCampaign = await service.call(name, { apiKey, body: validBody(name, { projectID: 'PRJ-404', campaignID: 'CMP-404' }, { mobile_number: mobile }) });
      expectEnvelope(projectAndCampaign, 422, 'Project not found');
    });

    it('stored nothing for those refusals: the store still has the one lead of that mobile', async () => {
      const stored = (await service.repository.leadArchive.listLeads('acc-rules', ['PRJ-1', 'PRJ-2'])).filter((lead) => lead.mobile_number === mobile);
      expect(stored).toHaveLength(1);
    });
  });

  it.each(['portala', 'portalb'] as const)('answers Campaign not found on %s, not Lead already exists', async (name) => {
    const mobile = uniqueMobile();
    expect((await service.call(name, { apiKey, body: validBody(name, project, { mobile_number: mobile }) })).status).toBe(200);
    const answer = await service.call(name, { apiKey, body: validBody(name, { projectID: 'PRJ-1', campaignID: 'CMP-2' }, { mobile_number: mobile }) });
    expectEnvelope(answer, 422, 'Campaign not found');
  });
});

describe('a database that throttles the lead write', () => {
  let failing: Awaited<ReturnType<typeof failingService>>;
  beforeAll(async () => {
    failing = await failingService(throttled);
  });

  it.each(endpointNames)('answers 503 with Retry-After on %s, in the envelope, storing nothing', async (name) => {
    const answer = await failing.service.call(name, { apiKey: failing.apiKey, body: validBody(name, project) });
    expectEnvelope(answer, 503, 'Service temporarily unavailable, please retry');
    expect(answer.body).toEqual({ status: false, message: 'Service temporarily unavailable, please retry' });
    expect(answer.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(await failing.service.repository.leadArchive.listLeads('acc-rules', ['PRJ-1'])).toEqual([]);
  });
});

describe('CORS on every answer of the website endpoint', () => {
  const fromPage = { origin: ORIGIN };
  const expectCors = (answer: Answer) => expect(answer.headers['access-control-allow-origin']).toBe('*');

  it.each<[string, number, () => Promise<Answer>]>([
    ['a body over 64 KiB', 413, () => service.call('website', { apiKey, rawBody: 'x'.repeat(65_537), headers: fromPage })],
    ['a text/plain body', 415, () => service.call('website', { apiKey, rawBody: '{}', headers: { ...fromPage, 'content-type': 'text/plain' } })],
    ['broken JSON', 400, () => service.call('website', { apiKey, rawBody: '{', headers: fromPage })],
    ['a missing key', 401, () => service.call('website', { body: validBody('website', project), headers: fromPage })],
    ['a key of no account', 404, () => service.call('website', { apiKey: orphanKey, body: validBody('website', project), headers: fromPage })],
    ['an invalid field', 422, () => service.call('website', { apiKey, body: validBody('website', project, { mobile_number: '123' }), headers: fromPage })],
    ['a new lead', 200, () => service.call('website', { apiKey, body: validBody('website', project), headers: fromPage })],
  ])('is set for %s (%i)', async (_, status, send) => {
    const answer = await send();
    expect(answer.status).toBe(status);
    expectCors(answer);
  });

  it.each<[string, number, () => Error]>([
    ['a throttled database', 503, throttled],
    ['an unexpected failure', 500, unexpected],
  ])('is set for %s (%i)', async (_, status, error) => {
    const failing = await failingService(error);
    const answer = await failing.service.call('website', { apiKey: failing.apiKey, body: validBody('website', project), headers: fromPage });
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe(JSON_TYPE);
    expectCors(answer);
  });
});

describe('alternate_number', () => {
  it.each(endpointNames)('is refused on %s when malformed, with its own message', async (name) => {
    for (const alternate of ['12345', 'call me', '5876543210', '98765-4321O', '+91 98765 4321 0 0 0 0 0 0']) {
      const answer = await service.call(name, { apiKey, body: validBody(name, project, { alternate_number: alternate }) });
      expect([answer.status, answer.body.errors]).toEqual([422, { alternate_number: ['alternate_number must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9'] }]);
    }
  });

  it.each(endpointNames)('is read as its digits on %s when sent as a JSON number, and stored normalised', async (name) => {
    const mobile = uniqueMobile();
    const alternate = `8${mobile.slice(1)}`;
    const rawBody = JSON.stringify(validBody(name, project, { mobile_number: mobile, alternate_number: 0 })).replace('"alternate_number":0', `"alternate_number":91${alternate}`);
    const answer = await service.call(name, { apiKey, rawBody });
    expect(answer.status).toBe(200);
    const [stored] = (await service.repository.leadArchive.listLeads('acc-rules', ['PRJ-1'])).filter((lead) => lead.mobile_number === mobile);
    expect(stored?.alternate_number).toBe(alternate);
    if (answer.body.data) expect(answer.body.data.alternate_number).toBe(alternate);
  });

  it.each(['9876543210.5', '-9876543210', '9.87654321e9'])('is refused as the JSON number %s', async (number) => {
    const rawBody = JSON.stringify(validBody('portala', project, { alternate_number: 0 })).replace('"alternate_number":0', `"alternate_number":${number}`);
    const answer = await service.call('portala', { apiKey, rawBody });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['alternate_number']);
  });
});

describe('trimming before every look-up', () => {
  it('finds the website sub source, the project and the campaign with spaces around them', async () => {
    const answer = await service.call('website', {
      apiKey,
      body: validBody('website', { projectID: '  PRJ-1 ', campaignID: '\tCMP-1  ' }, { sub_source: '  Skyline landing page  ' }),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ projectID: 'PRJ-1', campaignID: 'CMP-1', sub_source: 'Skyline landing page' });
  });

  it('finds the social platform with spaces around it', async () => {
    const mobile = uniqueMobile();
    const answer = await service.call('social', { apiKey, body: validBody('social', project, { platform: ' ig  ', mobile_number: mobile }) });
    expect(answer.status).toBe(200);
    const [stored] = (await service.repository.leadArchive.listLeads('acc-rules', ['PRJ-1'])).filter((lead) => lead.mobile_number === mobile);
    expect(stored).toMatchObject({ sub_source: 'ig', platform: 'ig' });
  });

  it.each<EndpointName>(['portala', 'website'])('finds the duplicate of a mobile with spaces around it on %s', async (name) => {
    const mobile = uniqueMobile();
    expect((await service.call(name, { apiKey, body: validBody(name, project, { mobile_number: mobile }) })).status).toBe(200);
    const answer = await service.call(name, { apiKey, body: validBody(name, { projectID: ' PRJ-1 ', campaignID: 'CMP-1' }, { mobile_number: `  ${mobile} ` }) });
    expectEnvelope(answer, 422, 'Lead already exists');
  });

  it('reads the API key with spaces around it', async () => {
    const answer = await service.call('portalb', { apiKey: `  ${apiKey} `, body: validBody('portalb', project) });
    expect(answer.status).toBe(200);
  });
});

describe('the social endpoint', () => {
  it('stores none of the fields it does not know, nor lets them replace what the service sets', async () => {
    const mobile = uniqueMobile();
    const answer = await service.call('social', {
      apiKey,
      body: validBody('social', project, {
        mobile_number: mobile,
        platform: 'fb',
        form_id: '123',
        ad_account: { id: 7 },
        sub_source: 'Skyline landing page',
        source: 'website',
        is_repeated: true,
        parent_lead_id: '01PARENT',
        id: 'chosen-id',
        created_at: '2000-01-01T00:00:00.000Z',
        utm_source: 'google',
        visitor_ip: '203.0.113.7',
        social_ad: 'Ad 1',
      }),
    });
    expect(answer.body).toEqual({ status: true, message: 'Lead created successfully' });
    const [stored] = (await service.repository.leadArchive.listLeads('acc-rules', ['PRJ-1'])).filter((lead) => lead.mobile_number === mobile);
    expect(Object.keys(stored!).sort()).toEqual(
      ['id', 'name', 'mobile_number', 'projectID', 'campaignID', 'source', 'sub_source', 'platform', 'is_repeated', 'parent_lead_id', 'created_at', 'social_ad'].sort(),
    );
    expect(stored).toMatchObject({ source: 'social', sub_source: 'fb', platform: 'fb', is_repeated: false, parent_lead_id: null, social_ad: 'Ad 1' });
    expect(stored!.id).not.toBe('chosen-id');
    expect(stored!.created_at).not.toBe('2000-01-01T00:00:00.000Z');
  });
});
