/**
 * The API documentation on the local server: `GET /docs` is a Swagger UI page, `GET /docs/openapi.json`
 * the document `npm run openapi` wrote (docs/openapi.json), and `GET /docs/assets/...` Swagger UI's own
 * files from node_modules/swagger-ui-dist. Nothing comes from a CDN.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { ServerResponse } from 'node:http';
import { OPENAPI_FILE, serialiseOpenApiDocument } from '../openapi/build.ts';

export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/docs/openapi.json';
const ASSETS_PATH = '/docs/assets/';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The files of swagger-ui-dist the page uses, by name: nothing else is served from that folder. */
const assets: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Lead intake service: API documentation</title>
  <link rel="stylesheet" href="${ASSETS_PATH}swagger-ui.css">
  <link rel="icon" type="image/png" href="${ASSETS_PATH}favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${ASSETS_PATH}favicon-16x16.png" sizes="16x16">
  <style>body { margin: 0; } .swagger-ui .info { margin: 32px 0 16px; }</style>
</head>
<body>
  <main id="swagger-ui"></main>
  <script src="${ASSETS_PATH}swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: '${OPENAPI_PATH}',
      dom_id: '#swagger-ui',
      layout: 'BaseLayout',
      presets: [SwaggerUIBundle.presets.apis],
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      validatorUrl: null,
    });
  </script>
</body>
</html>
`;

/** The server entry that is the server showing the page, whatever its host and PORT. */
const THIS_SERVER_URL = '/';

interface ServedDocument {
  servers?: { url: string }[];
  security?: Record<string, unknown>[];
  components?: { securitySchemes?: Record<string, unknown> };
}

/**
 * The committed document as this page needs it; nothing else in it changes.
 * - The server showing the page first: Swagger UI selects the first server, so "Try it out" posts to
 *   this very server (on whatever PORT it runs), not to the deployed `{base_url}` placeholder or a fixed
 *   local port.
 * - The scheme the document's own `security` names (the lead endpoints' `x-api-key`) first among the
 *   security schemes: Swagger UI's Authorize dialog lists them in the document's order, and the admin
 *   API's SigV4 box, which it cannot sign with, would otherwise be the first a reader fills with the demo key.
 */
export const forThisPage = (text: string): string => {
  const document = JSON.parse(text) as ServedDocument;
  const servers = document.servers ?? [];
  const own = servers.findIndex((server) => server.url === THIS_SERVER_URL);
  const schemes = document.components?.securitySchemes ?? {};
  const defaults = new Set((document.security ?? []).flatMap((requirement) => Object.keys(requirement)));
  const ordered = Object.fromEntries([...Object.entries(schemes).filter(([name]) => defaults.has(name)), ...Object.entries(schemes).filter(([name]) => !defaults.has(name))]);
  return serialiseOpenApiDocument({
    ...document,
    ...(own > 0 && { servers: [servers[own]!, ...servers.filter((_, i) => i !== own)] }),
    ...(document.components?.securitySchemes && { components: { ...document.components, securitySchemes: ordered } }),
  });
};

const send = (response: ServerResponse, type: string, body: string | Buffer) => {
  response.writeHead(200, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  response.end(body);
};

/**
 * Answers a documentation request and returns true, or returns false for anything else (another path,
 * or a method other than GET), which the server then answers as usual.
 */
export const serveDocs = async (method: string, pathname: string, response: ServerResponse): Promise<boolean> => {
  if (method !== 'GET') return false;
  if (pathname === DOCS_PATH || pathname === `${DOCS_PATH}/`) {
    send(response, 'text/html; charset=utf-8', page);
    return true;
  }
  if (pathname === OPENAPI_PATH) {
    send(response, 'application/json; charset=utf-8', forThisPage(await readFile(OPENAPI_FILE, 'utf8')));
    return true;
  }
  if (pathname.startsWith(ASSETS_PATH)) {
    const name = pathname.slice(ASSETS_PATH.length);
    const type = Object.hasOwn(assets, name) ? assets[name] : undefined;
    if (type === undefined) return false;
    send(response, type, await readFile(path.join(swaggerUiDir, name)));
    return true;
  }
  return false;
};
