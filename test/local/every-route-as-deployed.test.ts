/**
 * Every route of the registry through `npm start` (a child process on the run's DynamoDB
 * Local, tables of its own, and the demo seed), as a new operator meets them: each answer a route's function gives carries
 * `x-request-id` (CONTRACT.md section 1), whatever the answer (a refusal, a subscription check, a
 * preflight, a body too large, a lead accepted, every admin route), so a route added to the registry is
 * held to it without a line here; and each route's body bound answers as deployed (section 15's 3 MiB
 * for WhatsApp's notifications, not the local server's own limit).
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { MAX_READ_BYTES } from '../../scripts/local/http-server.ts';
import { adminRoutes } from '../../shared/admin-routes.ts';
import { MAX_BODY_BYTES } from '../../shared/intake/steps.ts';
import { LOCAL_META_APP_SECRET, LOCAL_META_VERIFY_TOKEN } from '../../shared/meta-app-local.ts';
import { leadSources } from '../../shared/sources/registry.ts';
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';
import { adminClient } from '../support/admin-client.ts';
import { bannerOf, killGroup, runsDatabase, spawnNpmStart, type StartedService } from '../support/processes.ts';

/** The run's DynamoDB Local, tables of this file's own: npm start and the admin CLI share them. */
const database = runsDatabase();

let service: StartedService;
let baseUrl: string;

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'LEAD_INTAKE_SEED', 'META_APP_SECRET', 'META_VERIFY_TOKEN', 'LEAD_EVENTS_WEBHOOK_URL']) delete env[name];
  Object.assign(env, database);
  service = spawnNpmStart(projectRoot, env);
  await bannerOf(service);
}, 90_000);

afterAll(() => {
  killGroup(service?.child.pid);
});

/** The demo seed's key for the four lead endpoints (seed/demo.json). */
const DEMO_KEY = 'demo-key-please-change';
const sign = (raw: string | Buffer) => `sha256=${createHmac('sha256', LOCAL_META_APP_SECRET).update(raw).digest('hex')}`;
const boundOf = (source: LeadSourceDescriptor) => source.maxBodyBytes ?? MAX_BODY_BYTES;
/** A route's path with its parameters filled in (the call webhook's `{provider}`). */
const pathOf = (source: LeadSourceDescriptor) => source.route.path.replace(/\{\w+\}/g, 'exotel');

interface Ask {
  readonly kind: string;
  readonly method: string;
  readonly query?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** What each route is asked, from its declaration alone: every kind of answer its methods can give without setup. */
const asksOf = (source: LeadSourceDescriptor): Ask[] => {
  const methods = source.route.methods;
  const tooLarge = 'x'.repeat(boundOf(source) + 1);
  const credentials: Record<string, string> = source.authentication === 'api-key' ? { 'x-api-key': DEMO_KEY } : source.authentication === 'platform-signature' ? { 'x-hub-signature-256': sign(tooLarge) } : {};
  return [
    ...(methods.includes('POST')
      ? [
          { kind: 'a POST with no credentials', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
          { kind: 'a POST of malformed JSON', method: 'POST', headers: { 'content-type': 'application/json', ...credentials }, body: '{"name":' },
          { kind: 'a POST over its body bound', method: 'POST', headers: { 'content-type': 'application/json', ...credentials }, body: tooLarge },
        ]
      : []),
    ...(methods.includes('GET') && source.route.queryString
      ? [
          { kind: 'a subscription check answered', method: 'GET', query: `hub.mode=subscribe&hub.verify_token=${LOCAL_META_VERIFY_TOKEN}&hub.challenge=1158201444` },
          { kind: 'a subscription check refused', method: 'GET', query: 'hub.mode=subscribe&hub.verify_token=another&hub.challenge=1158201444' },
        ]
      : []),
    ...(methods.includes('GET') ? [{ kind: 'a GET with nothing', method: 'GET' }] : []),
    ...(methods.includes('OPTIONS') ? [{ kind: 'a preflight', method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } }] : []),
    ...(source.authentication === 'api-key'
      ? [{ kind: 'a dry run accepted', method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': DEMO_KEY, 'x-dry-run': 'true' }, body: JSON.stringify(acceptedBody(source.name)) }]
      : []),
  ];
};

/** A body the demo account accepts on a lead endpoint (seed/demo.json). */
const acceptedBody = (endpoint: string) => ({
  name: 'Request Id',
  mobile_number: '9876500044',
  projectID: 'PRJ-1',
  campaignID: 'CMP-1',
  ...(endpoint === 'website' && { sub_source: 'Skyline landing page' }),
  ...(endpoint === 'social' && { platform: 'fb' }),
  ...((endpoint === 'portala' || endpoint === 'portalb') && { notes: 'From the request-id test' }),
});

const cases = leadSources.flatMap((source) => asksOf(source).map((ask) => [source.name, ask.kind, source, ask] as const));

describe('every answer of every route carries x-request-id', () => {
  it('asks every declared route at least one thing', () => {
    expect(new Set(cases.map(([name]) => name))).toEqual(new Set(leadSources.map((source) => source.name)));
  });

  it.each(cases)('%s: %s', async (_name, _kind, source, ask) => {
    const response = await fetch(`${baseUrl}${pathOf(source)}${ask.query ? `?${ask.query}` : ''}`, { method: ask.method, ...(ask.headers && { headers: ask.headers }), ...(ask.body !== undefined && { body: ask.body }) });
    await response.arrayBuffer();
    expect({ status: response.status, requestId: response.headers.get('x-request-id') }).toEqual({ status: response.status, requestId: expect.stringMatching(/^[\w-]{8,}$/) });
  });

  it.each(adminRoutes.map((route) => [route.method, route.path, route] as const))('admin %s %s', async (_method, _path, route) => {
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => `no-such-${name.toLowerCase()}`);
    const answer = await adminClient(baseUrl)({ method: route.method, path, ...((route.method === 'PUT' || route.method === 'POST') && { body: {} }) });
    expect({ status: answer.status, requestId: answer.headers['x-request-id'] }).toEqual({ status: answer.status, requestId: expect.stringMatching(/^[\w-]{8,}$/) });
  });
});

describe('each route’s body bound answers as deployed', () => {
  const whatsapp = leadSources.find((source) => source.name === 'whatsapp')!;
  /** A signed WhatsApp notification of exactly `bytes` bytes: no messages, a padding member Meta's reader ignores. */
  const notificationOf = (bytes: number) => {
    const shell = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'WABA-1', changes: [] }], padding: '' });
    return JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'WABA-1', changes: [] }], padding: 'x'.repeat(bytes - shell.length) });
  };
  const post = async (raw: string) => {
    const response = await fetch(`${baseUrl}${whatsapp.route.path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(raw) }, body: raw });
    return { status: response.status, body: await response.json() };
  };

  it('reads as much of a body as the largest route accepts, from the registry', () => {
    expect(MAX_READ_BYTES).toBe(Math.max(...leadSources.map(boundOf)));
    expect(whatsapp.maxBodyBytes).toBe(3 * 1024 * 1024);
  });

  it('takes a signed WhatsApp notification between 1 and 3 MiB whole, as the deployed route does', async () => {
    expect(await post(notificationOf(2 * 1024 * 1024))).toEqual({ status: 200, body: { status: true, message: 'Notification received' } });
    expect(await post(notificationOf(3 * 1024 * 1024))).toEqual({ status: 200, body: { status: true, message: 'Notification received' } });
  });

  it('answers a signed WhatsApp notification of 3 MiB and one byte 413, not 401', async () => {
    expect(await post(notificationOf(3 * 1024 * 1024 + 1))).toEqual({ status: 413, body: { status: false, message: 'Payload too large' } });
  });

  it('answers a lead endpoint’s body of 64 KiB and one byte 413 still', async () => {
    const response = await fetch(`${baseUrl}/api/portala-lead-create`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': DEMO_KEY }, body: 'x'.repeat(MAX_BODY_BYTES + 1) });
    expect([response.status, await response.json()]).toEqual([413, { status: false, message: 'Payload too large' }]);
  });
});
