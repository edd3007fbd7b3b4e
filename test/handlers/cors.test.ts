import { beforeAll, describe, expect, it } from '@jest/globals';
import { testService, validBody, type TestService } from '../support/service.ts';

const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

const serviceWithOrigins = async (corsAllowedOrigins?: string[]) => {
  const service = await testService(corsAllowedOrigins ? { corsAllowedOrigins } : {});
  await service.seedAccount({ id: 'acc-a', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
  return { service, apiKey: await service.issueKey('acc-a') };
};

describe('CORS on the website endpoint', () => {
  let service: TestService;
  let apiKey: string;
  beforeAll(async () => ({ service, apiKey } = await serviceWithOrigins()));

  it('answers preflight without an API key, naming content-type and x-api-key', async () => {
    const answer = await service.call('website', { method: 'OPTIONS', headers: { origin: 'https://skyline.example', 'access-control-request-method': 'POST' } });
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-allow-methods']).toContain('POST');
    const allowed = answer.headers['access-control-allow-headers']!.split(',').map((h) => h.trim());
    expect(allowed).toEqual(expect.arrayContaining(['content-type', 'x-api-key']));
    expect(allowed).not.toContain('*');
    expect(answer.headers['x-request-id']).toBeTruthy();
  });

  it.each([
    ['a success', () => ({ apiKey, body: validBody('website', project) }), 200],
    ['a refusal', () => ({ body: validBody('website', project) }), 401],
    ['a validation failure', () => ({ apiKey, body: {} }), 422],
  ])('sets Access-Control-Allow-Origin on %s', async (_, request, status) => {
    const answer = await service.call('website', request());
    expect(answer.status).toBe(status);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
  });

  it('does not add CORS headers to the server-to-server endpoints', async () => {
    const answer = await service.call('portala', { apiKey, body: validBody('portala', project) });
    expect(answer.headers).not.toHaveProperty('access-control-allow-origin');
  });
});

describe('CORS with configured origins', () => {
  it('echoes an allowed origin, and varies on Origin', async () => {
    const { service, apiKey } = await serviceWithOrigins(['https://skyline.example', 'https://riverside.example']);
    const answer = await service.call('website', { apiKey, body: validBody('website', project), headers: { origin: 'https://riverside.example' } });
    expect(answer.headers['access-control-allow-origin']).toBe('https://riverside.example');
    expect(answer.headers.vary).toBe('Origin');
  });

  it('does not allow an origin outside the list', async () => {
    const { service } = await serviceWithOrigins(['https://skyline.example']);
    const answer = await service.call('website', { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(answer.headers['access-control-allow-origin']).not.toBe('https://evil.example');
  });
});
