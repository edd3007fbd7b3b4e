import { describe, expect, test } from '@jest/globals';
import { portalAEndpoint, portalBEndpoint, socialEndpoint, websiteEndpoint } from '../../shared/endpoints.ts';
import { portalaSource, portalbSource, socialSource, websiteSource } from '../../shared/sources/lead-endpoints.ts';

const endpoints = [
  [websiteEndpoint, websiteSource],
  [portalAEndpoint, portalaSource],
  [portalBEndpoint, portalbSource],
  [socialEndpoint, socialSource],
] as const;

describe('an API key endpoint is described once', () => {
  test.each(endpoints.map(([endpoint, source]) => [endpoint.name, endpoint, source] as const))(
    '%s: its descriptor reads the declaration its function reads (name, leads’ source, answer, browser-facing)',
    (_name, endpoint, source) => {
      expect(source.name).toBe(endpoint.name);
      expect(source.leadSource).toBe(endpoint.leadSource);
      // The same object, not an equal copy: the registry and the function read one declaration.
      expect(source.acceptance).toBe(endpoint.acceptance);
      expect(source.browserFacing).toBe(endpoint.browserFacing);
    },
  );

  test.each(endpoints.map(([endpoint, source]) => [endpoint.name, endpoint, source] as const))(
    '%s: it is a source of the intake with an API key allowed on itself and a JSON body, as its descriptor says',
    (_name, endpoint, source) => {
      expect(endpoint.authentication).toEqual({ kind: source.authentication, endpoint: source.name });
      expect(endpoint.bodyFormat).toBe(source.bodyFormat);
    },
  );

  test('the social endpoint answers without the lead, the others with it (spec, section 4)', () => {
    expect(Object.fromEntries(endpoints.map(([endpoint]) => [endpoint.name, endpoint.acceptance]))).toEqual({
      website: { status: 200, message: 'Lead created successfully', withLead: true },
      portala: { status: 200, message: 'Lead created successfully', withLead: true },
      portalb: { status: 200, message: 'Lead created successfully', withLead: true },
      social: { status: 200, message: 'Lead created successfully', withLead: false },
    });
  });
});
