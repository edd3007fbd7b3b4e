import { beforeAll, describe, expect, it } from '@jest/globals';
import { endpointNames, testService, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-a', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
  apiKey = await service.issueKey('acc-a');
});

describe.each(endpointNames)('the API key on %s', (name) => {
  it('answers 401 API Key missing without the header', async () => {
    const answer = await service.call(name, { body: validBody(name, project) });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ status: false, message: 'API Key missing' });
  });

  it('answers 401 API Key missing for an empty header', async () => {
    const answer = await service.call(name, { apiKey: '  ', body: validBody(name, project) });
    expect(answer).toMatchObject({ status: 401, body: { message: 'API Key missing' } });
  });

  it('answers 401 Invalid API credentials for an unknown key', async () => {
    const answer = await service.call(name, { apiKey: 'not-a-key', body: validBody(name, project) });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ status: false, message: 'Invalid API credentials' });
  });

  it('answers 401 Invalid API credentials for an inactive key', async () => {
    const inactive = await service.issueKey('acc-a', { active: false });
    const answer = await service.call(name, { apiKey: inactive, body: validBody(name, project) });
    expect(answer).toMatchObject({ status: 401, body: { status: false, message: 'Invalid API credentials' } });
  });

  it('answers 404 Client not found for a valid key of no account', async () => {
    const orphan = await service.issueKey('acc-that-does-not-exist');
    const answer = await service.call(name, { apiKey: orphan, body: validBody(name, project) });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ status: false, message: 'Client not found' });
  });

  it('reads the header name case-insensitively', async () => {
    const answer = await service.call(name, { headers: { 'X-API-KEY': apiKey }, body: validBody(name, project) });
    expect(answer.status).toBe(200);
  });

  it('checks the key before anything else in the request', async () => {
    const answer = await service.call(name, { rawBody: '{not json', headers: { 'content-type': 'text/plain' } });
    expect(answer).toMatchObject({ status: 401, body: { message: 'API Key missing' } });
  });
});
