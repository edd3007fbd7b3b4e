import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { leadRoutes } from '../../shared/sources/registry.ts';
import type { LeadHandlers } from '../../scripts/local/environment.ts';
import { createLocalServer } from '../../scripts/local/http-server.ts';
import { OPENAPI_FILE } from '../../scripts/openapi/build.ts';

const byUrl = (a: { url: string }, b: { url: string }) => a.url.localeCompare(b.url);
const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Handlers that answer a fixed 200: the lead routes must still reach them. */
const handlers = Object.fromEntries(
  leadRoutes.map((route) => [route.endpoint, async () => ({ statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: `{"endpoint":"${route.endpoint}"}` })]),
) as unknown as LeadHandlers;

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createLocalServer({ handlers });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('GET /docs', () => {
  it.each(['/docs', '/docs/'])('%s is a Swagger UI page on local assets and the local document', async (docsPath) => {
    const response = await fetch(`${baseUrl}${docsPath}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('SwaggerUIBundle(');
    expect(html).toContain("url: '/docs/openapi.json'");
    expect(html).not.toMatch(/https?:\/\//);
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(references).toEqual(expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js']));
    for (const reference of references) expect(reference).toMatch(/^\/docs\/assets\//);
  });

  it.each([
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['favicon-32x32.png', 'image/png'],
  ])('serves %s from node_modules/swagger-ui-dist', async (name, type) => {
    const response = await fetch(`${baseUrl}/docs/assets/${name}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(path.join(swaggerUiDir, name)))).toBe(true);
  });

  it('serves /docs/openapi.json: the committed document, with the server showing the page first (the one Swagger UI selects)', async () => {
    const response = await fetch(`${baseUrl}/docs/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const served = JSON.parse(await response.text());
    const committed = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    expect(served.servers[0]).toEqual({ url: '/', description: expect.stringContaining('The server showing this page') });
    expect([...served.servers].sort(byUrl)).toEqual([...committed.servers].sort(byUrl));
    expect({ ...served, servers: undefined }).toEqual({ ...committed, servers: undefined });
  });

  it('so "Try it out" reaches this server on whatever port it runs: the first server resolves to the page\'s own origin', async () => {
    const served = (await (await fetch(`${baseUrl}/docs/openapi.json`)).json()) as { servers: { url: string; variables?: unknown }[] };
    const [selected] = served.servers;
    // No placeholder to fill in (the deployed {base_url}), and no fixed port: the page's own origin.
    expect(selected!.variables).toBeUndefined();
    expect(selected!.url).not.toMatch(/[{}]|:\d+/);
    expect(new URL(selected!.url, `${baseUrl}/docs`).origin).toBe(baseUrl);
  });

  it("lists the lead endpoints' x-api-key scheme first, so the Authorize dialog's first box is the one the demo key goes in", async () => {
    const served = (await (await fetch(`${baseUrl}/docs/openapi.json`)).json()) as {
      security: Record<string, unknown>[];
      components: { securitySchemes: Record<string, { in: string; name: string }> };
    };
    const [first] = Object.entries(served.components.securitySchemes);
    expect(Object.keys(served.security[0]!)).toEqual([first![0]]);
    expect(first![1]).toMatchObject({ in: 'header', name: 'x-api-key' });
    const committed = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    expect(Object.keys(served.components.securitySchemes).sort()).toEqual(Object.keys(committed.components.securitySchemes).sort());
  });
});

describe('what it does not serve', () => {
  it.each(['/docs/assets/package.json', '/docs/assets/index.html', '/docs/assets/%2e%2e/package.json', '/docs/openapi.yaml', '/docsx'])(
    'GET %s is the server’s 404',
    async (docsPath) => {
      const response = await fetch(`${baseUrl}${docsPath}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ status: false, message: 'Not found' });
    },
  );

  it.each(['POST', 'PUT', 'DELETE'])('%s /docs is the server’s 404: only GET', async (method) => {
    const response = await fetch(`${baseUrl}/docs`, { method, ...(method !== 'DELETE' && { body: '{}' }) });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ status: false, message: 'Not found' });
  });

  it('leaves the lead routes to their handlers', async () => {
    const response = await fetch(`${baseUrl}/api/social-lead-create`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ endpoint: 'social' });
  });
});
