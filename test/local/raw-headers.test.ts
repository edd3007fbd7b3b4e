/**
 * Header names as senders really write them, byte for byte on the wire (a raw socket, not fetch, which
 * may normalise them), through the local HTTP server and the real handlers over DynamoDB Local. The
 * handler tests build events with apiGatewayEvent, which lower-cases names first; this proves the
 * whole path does.
 */
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EndpointName } from '../../shared/routes.ts';
import { leadRoutes } from '../../shared/sources/registry.ts';
import { createLocalServer } from '../../scripts/local/http-server.ts';
import { endpointNames, testService, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let server: Server;
let port: number;
let apiKey: string;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-raw', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
  apiKey = await service.issueKey('acc-raw');
  server = createLocalServer({ handlers: service.handlers });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
}

/** A chunked HTTP/1.1 body, joined. */
const unchunk = (text: string): string => {
  let body = '';
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return body;
    body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
};

/** Writes one HTTP/1.1 request exactly as given and reads the whole answer. */
const raw = (method: string, path: string, headerLines: string[], body = ''): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head!.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const payload = headers['transfer-encoding'] === 'chunked' ? unchunk(rest.join('\r\n\r\n')) : rest.join('\r\n\r\n');
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: payload ? JSON.parse(payload) : undefined });
    });
    const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', ...headerLines];
    if (body || method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
    // Written, not ended: a half-closed socket would end the exchange before the answer. The server
    // closes the connection after answering (Connection: close).
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });

const pathOf = (name: EndpointName) => leadRoutes.find((route) => route.endpoint === name)!.path;

describe.each(endpointNames)('raw mixed-case headers on %s over HTTP', (name) => {
  it.each(['X-API-KEY', 'X-Api-Key', 'x-API-key'])('reads the key from %s and the Content-Type from CONTENT-TYPE', async (keyHeader) => {
    const answer = await raw('POST', pathOf(name), [`${keyHeader}: ${apiKey}`, 'CONTENT-TYPE: Application/JSON; Charset=UTF-8'], JSON.stringify(validBody(name, project)));
    expect([answer.status, answer.body.message]).toEqual([200, 'Lead created successfully']);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-request-id']).toBeTruthy();
  });

  it('answers API Key missing for an empty X-Api-Key', async () => {
    const answer = await raw('POST', pathOf(name), ['X-Api-Key: ', 'Content-Type: application/json'], JSON.stringify(validBody(name, project)));
    expect([answer.status, answer.body]).toEqual([401, { status: false, message: 'API Key missing' }]);
  });

  it('refuses a Content-Type written TEXT/PLAIN, after the key', async () => {
    const answer = await raw('POST', pathOf(name), [`X-Api-Key: ${apiKey}`, 'Content-Type: TEXT/PLAIN'], '{}');
    expect([answer.status, answer.body.message]).toEqual([415, 'Content-Type must be application/json']);
  });

  it('reads X-Dry-Run and Idempotency-Key whatever their case', async () => {
    const body = JSON.stringify(validBody(name, project));
    const dry = await raw('POST', pathOf(name), [`X-API-Key: ${apiKey}`, 'X-DRY-RUN: true', 'Content-Type: application/json'], body);
    expect([dry.status, dry.body.dry_run]).toEqual([200, true]);
    const idempotent = [`x-api-KEY: ${apiKey}`, `IDEMPOTENCY-KEY: raw-${name}-${Date.now()}`, 'content-type: application/json'];
    const first = await raw('POST', pathOf(name), idempotent, body);
    const again = await raw('POST', pathOf(name), idempotent, body);
    expect([first.status, again.status, again.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
  });
});

describe('raw mixed-case CORS headers on the website endpoint', () => {
  it('answers a preflight written in capitals', async () => {
    const answer = await raw('OPTIONS', pathOf('website'), [
      'ORIGIN: https://www.example-realty.in',
      'Access-Control-Request-Method: POST',
      'ACCESS-CONTROL-REQUEST-HEADERS: Content-Type, X-Api-Key',
    ]);
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-allow-headers']?.toLowerCase()).toContain('x-api-key');
  });

  it('sets Access-Control-Allow-Origin on a lead posted with Origin in capitals', async () => {
    const answer = await raw(
      'POST',
      pathOf('website'),
      ['ORIGIN: https://www.example-realty.in', `X-Api-Key: ${apiKey}`, 'Content-Type: application/json'],
      JSON.stringify(validBody('website', project)),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
  });
});
