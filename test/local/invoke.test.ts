import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { apiGatewayEvent } from '../../shared/http/api-gateway-event.ts';
import { leadRoutes, leadSources } from '../../shared/sources/registry.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { runInvoke } from '../../scripts/invoke.ts';
import { applySeed, readSeedFile } from '../../scripts/local/seed.ts';
import { testService, type TestService } from '../support/service.ts';

const eventsDir = path.join(projectRoot, 'events');
const eventFile = (name: string) => path.join(eventsDir, name);

/** What each example event answers on the demo seed, run in this order on a fresh database. */
const examples: [file: string, endpoint: string, status: number, message: string | undefined][] = [
  ['website.json', 'website', 200, 'Lead created successfully'],
  ['portala.json', 'portala', 200, 'Lead created successfully'],
  ['portalb.json', 'portalb', 200, 'Lead created successfully'],
  ['social.json', 'social', 200, 'Lead created successfully'],
  ['website-duplicate.json', 'website', 422, 'Lead already exists'],
  ['website-missing-key.json', 'website', 401, 'API Key missing'],
  ['portala-bad-mobile.json', 'portala', 422, 'mobile_number must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9'],
  ['social-unknown-platform.json', 'social', 422, 'Sub source not found'],
  ['website-preflight.json', 'website', 204, undefined],
  ['meta-leadgen.json', 'meta', 200, 'Notification received'],
  ['meta-bad-signature.json', 'meta', 401, 'Invalid signature'],
  ['google-ads.json', 'google-ads', 200, 'Lead received'],
  ['google-ads-test-data.json', 'google-ads', 200, 'Lead received'],
  ['call-exotel-passthru.json', 'calls', 200, 'Call received'],
  ['call-knowlarity-hook.json', 'calls', 200, 'Call received'],
  ['whatsapp-click-to-chat.json', 'whatsapp', 200, 'Notification received'],
];

let service: TestService;
let env: NodeJS.ProcessEnv;
/** What the handlers log (to stdout, as in Lambda), kept off the test output. */
const logged: string[] = [];

const invoke = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runInvoke(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};

beforeAll(async () => {
  // Kept line by line, as CloudWatch reads stdout: a request's log and metric lines come in one write.
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => logged.push(...String(chunk).split('\n').filter(Boolean)) > 0);
  service = await testService();
  await applySeed(service.repository, await readSeedFile(path.join(projectRoot, 'seed', 'demo.json')));
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
});

afterAll(() => {
  jest.restoreAllMocks();
});

describe('the example events in events/', () => {
  it('has an example for each endpoint, and one for each failure the issue names', () => {
    expect(readdirSync(eventsDir).sort()).toEqual(examples.map(([file]) => file).sort());
    for (const route of leadRoutes) expect(readdirSync(eventsDir)).toContain(`${route.endpoint}.json`);
  });

  it('runs each example as the source whose sample events name it, and every source has one', () => {
    expect(examples.map(([file, endpoint]) => [file, endpoint])).toEqual(
      examples.map(([file]) => [file, leadSources.find((source) => source.sampleEvents.includes(`events/${file}`))?.invokeName]),
    );
    expect(leadSources.filter((source) => !examples.some(([, endpoint]) => endpoint === source.invokeName)).map((source) => source.name)).toEqual([]);
  });

  it.each(examples)('%s has the shape API Gateway sends to the %s route', (file, endpoint) => {
    const event = JSON.parse(readFileSync(eventFile(file), 'utf8'));
    // A path with parameters (the call webhook's {provider}): API Gateway hands the route's template and the parameters on.
    const { route } = leadSources.find((source) => source.invokeName === endpoint)!;
    const method = event.requestContext.http.method;
    const templated = route.path.includes('{');
    const rawPath = route.path.replace(/\{(\w+)\}/g, (_, name: string) => event.pathParameters[name]);
    const reference = apiGatewayEvent({
      method,
      path: rawPath,
      body: '{}',
      ...(templated && { routeKey: `${method} ${route.path}`, pathParameters: event.pathParameters, rawQueryString: event.rawQueryString }),
    });
    const keys = (object: object) => Object.keys(object).filter((key) => key !== 'body').sort();
    expect(keys(event)).toEqual(keys(reference));
    expect(keys(event.requestContext)).toEqual(keys(reference.requestContext));
    expect(keys(event.requestContext.http)).toEqual(keys(reference.requestContext.http));
    expect(event).toMatchObject({ version: '2.0', rawPath, routeKey: reference.routeKey, isBase64Encoded: false });
    for (const name of Object.keys(event.headers)) expect(name).toBe(name.toLowerCase());
  });
});

describe('npm run invoke', () => {
  it.each(examples)('runs the handler on %s (%s) and prints its answer', async (file, endpoint, status, message) => {
    const { code, stdout, stderr } = await invoke(endpoint, eventFile(file));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const response = JSON.parse(stdout);
    expect(response.statusCode).toBe(status);
    expect(response.headers['x-request-id']).toBe(JSON.parse(readFileSync(eventFile(file), 'utf8')).requestContext.requestId);
    if (message === undefined) expect(response.body).toBeUndefined();
    else expect(JSON.parse(response.body).message).toBe(message);
  });

  it('stored the leads the example events created, under the demo account', async () => {
    const leads = await service.repository.leadArchive.listLeads('acc-demo', ['PRJ-1']);
    expect(leads.map((lead) => [lead.source, lead.mobile_number])).toEqual([
      ['website', '9810000001'],
      ['portala', '9810000002'],
      ['portalb', '9810000003'],
      ['social', '9810000004'],
      ['social', '9000000001'],
      ['google_ads', '9810000031'],
      ['call', '9876500041'],
      ['call', '9876500042'],
      ['social', '9876500061'],
    ]);
  });

  it('turned the signed click-to-WhatsApp sample into a wp lead of the demo number’s project, with its ad', async () => {
    const leads = await service.repository.leadArchive.listLeads('acc-demo', ['PRJ-1']);
    expect(leads.filter((lead) => lead.whatsapp_phone_number_id === '106540352242922')).toEqual([
      expect.objectContaining({
        name: 'Asha Verma',
        mobile_number: '9876500061',
        source: 'social',
        sub_source: 'wp',
        campaignID: 'CMP-1',
        whatsapp_referral_type: 'ad',
        whatsapp_ad_id: '120210000000000001',
        whatsapp_source_url: 'https://fb.me/skyline-towers-2bhk',
      }),
    ]);
  });

  it("recorded Google's test data as a google_test_lead rejection with its lead id, storing no lead", async () => {
    const records = (await service.repository.rejections.listRejections('acc-demo')).filter((record) => record.endpoint === 'google_ads');
    expect(records).toEqual([expect.objectContaining({ reason: 'google_test_lead', google_lead_id: expect.stringMatching(/TestData00$/) })]);
  });

  it("logged one line per event, without the key", () => {
    // One request line per event (the worker's lines for the Meta notification come on top).
    expect(logged.filter((line) => line.includes('"requestId":"local-event-') && line.includes('"message":"lead request"'))).toHaveLength(examples.length);
    expect(logged.join('')).not.toContain('demo-key-please-change');
    expect(logged.join('')).not.toContain('demo-google-key-please-change');
    expect(logged.join('')).not.toContain('demo-calls-key-please-change');
  });

  it.each([
    [[], 'invoke: no endpoint given'],
    [['webform', 'events/website.json'], 'invoke: unknown endpoint "webform"'],
    [['website'], 'invoke: no event file given'],
  ])('refuses %j with exit code 2 and the usage', async (argv, message) => {
    const { code, stderr } = await invoke(...argv);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(message);
    expect(stderr).toContain('Usage: npm run invoke --');
  });

  it("runs the Meta sample's leadgen change through the worker: the demo page's lead, read from the local Graph API stand-in, is stored", async () => {
    const worker = logged.find((line) => line.includes('"endpoint":"meta"') && line.includes('1200000000000001'));
    expect(JSON.parse(worker!)).toMatchObject({ outcome: 'created', requestId: 'local-event-0010' });
    const leads = await service.repository.leadArchive.listLeads('acc-demo', ['PRJ-1']);
    expect(leads.filter((lead) => lead.meta_leadgen_id === '1200000000000001')).toEqual([
      expect.objectContaining({ source: 'social', sub_source: 'fb', mobile_number: '9000000001', meta_form_id: '2200000000000001' }),
    ]);
  });

  it('refuses a file that is not an API Gateway event, naming it', async () => {
    const { code, stderr } = await invoke('website', path.join(projectRoot, 'seed', 'demo.json'));
    expect(code).toBe(1);
    expect(stderr).toContain('demo.json: not an API Gateway HTTP API event');
  });

  it('refuses a FUNCTION_TIMEOUT_SECONDS that is not a number of seconds, naming it', async () => {
    const saved = env;
    env = { ...env, FUNCTION_TIMEOUT_SECONDS: 'ten' };
    try {
      const { code, stderr } = await invoke('website', eventFile('website.json'));
      expect(code).toBe(1);
      expect(stderr).toBe('invoke: FUNCTION_TIMEOUT_SECONDS must be a number of seconds from 0.5 to 900, not "ten"\n');
    } finally {
      env = saved;
    }
  });

  it('gives each event the function timeout: a database that never answers gets a 503 within FUNCTION_TIMEOUT_SECONDS', async () => {
    // Accepts connections and never answers them.
    const sockets: Socket[] = [];
    const blackHole = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    try {
      const started = performance.now();
      const child = spawn('npm', ['run', '--silent', 'invoke', '--', 'portala', 'events/portala.json'], {
        cwd: projectRoot,
        env: {
          ...process.env,
          DYNAMODB_ENDPOINT: `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}`,
          CONFIG_TABLE_NAME: 'config',
          LEADS_TABLE_NAME: 'leads',
          FUNCTION_TIMEOUT_SECONDS: '1.5',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      const response = JSON.parse(stdout.slice(stdout.indexOf('{\n')));
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('1');
      expect(JSON.parse(response.body)).toEqual({ status: false, message: 'Service temporarily unavailable, please retry' });
      expect(sockets.length).toBeGreaterThan(0);
      // The process takes a moment to start; the answer came at the 1.5 s deadline, not the default 10 s one.
      expect(performance.now() - started).toBeGreaterThan(1_000);
      expect(performance.now() - started).toBeLessThan(8_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    }
  }, 60_000);

  it('starts its own seeded DynamoDB Local when no endpoint is set, and runs events in order', async () => {
    const child = spawn('npm', ['run', '--silent', 'invoke', '--', 'website', 'events/website.json', 'events/website-duplicate.json'], {
      cwd: projectRoot,
      env: { ...process.env, DYNAMODB_ENDPOINT: '', CONFIG_TABLE_NAME: '', LEADS_TABLE_NAME: '', LEAD_INTAKE_SEED: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const statuses = [...stdout.matchAll(/"statusCode": (\d+)/g)].map((match) => Number(match[1]));
    expect(statuses).toEqual([200, 422]);
    expect(stdout).toContain('# events/website-duplicate.json');
    // Java's start is the wait: the first line says what it is.
    expect(stdout.split('\n')[0]).toBe('invoke: starting a throw-away in-memory DynamoDB Local (Java) with the seed seed/demo.json (set DYNAMODB_ENDPOINT to use a running one)...');
  }, 60_000);
});
