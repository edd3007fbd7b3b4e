import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { LEAD_BUNDLE_BUDGET_KB } from '../../bench/report.ts';
import { createDynamoDbClient } from '../../shared/dynamodb/client.ts';
import { createTables } from '../../shared/dynamodb/create-tables.ts';
import { configTable, leadsTable } from '../../shared/dynamodb/tables.ts';
import { apiGatewayEvent } from '../../shared/http/api-gateway-event.ts';
import { callsSource } from '../../shared/calls/source.ts';
import { whatsappSource } from '../../shared/whatsapp/source.ts';
import { ADMIN_BASE_PATH, runtimeSettings } from '../../shared/routes.ts';
import { googleAdsSource } from '../../shared/google/source.ts';
import { metaSource } from '../../shared/meta/source.ts';
import { leadRoutes, leadSources } from '../../shared/sources/registry.ts';
import { functionNames, REGION, stackModel } from '../iam/policy-check.ts';
import type { FunctionName } from '../support/aws-calls.ts';
import { runtimeClient, startFunction } from '../support/lambda-runtime.ts';
import { crmDeliveryContext, resources, synthesize, type Synthesized } from './synth.ts';

const outdir = mkdtempSync(path.join(tmpdir(), 'lead-intake-cdk-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** One bundling synth for the whole file, the way `cdk synth` bundles: the local esbuild, never Docker. */
let synthesized: Synthesized;
beforeAll(() => {
  const docker = process.env.CDK_DOCKER;
  process.env.CDK_DOCKER = 'false'; // any attempt to bundle in Docker fails this file
  try {
    synthesized = synthesize({ bundle: true, outdir, context: crmDeliveryContext });
    synthesized.app.synth();
  } finally {
    if (docker === undefined) delete process.env.CDK_DOCKER;
    else process.env.CDK_DOCKER = docker;
  }
}, 120_000);

const assetOf = (fn: { Properties?: Record<string, any> }) => path.join(outdir, `asset.${String(fn.Properties!.Code.S3Key).replace(/\.zip$/, '')}`);

describe('Bundling the functions', () => {
  test('builds each handler with the local esbuild into a non-empty ESM index.mjs with its source map', () => {
    const functions = Object.values(resources(synthesized.template, 'AWS::Lambda::Function'));
    // Each declared source's function (the four lead endpoints, Google Ads lead forms, the Meta webhook), an
    // asynchronous source's worker (Meta's), the admin function, the Lead Created enrichment function, the replay filter
    // the quiet-source watch, the retention sweep, and the portal pulls' schedule and pull.
    const expected = leadSources.length + leadSources.filter((source) => source.worker).length + 5 + 2;
    expect(functions).toHaveLength(expected);
    const hashes = new Map(functions.map((fn) => [String(fn.Properties!.Code.S3Key).replace(/\.zip$/, ''), String(fn.Properties!.Description)]));
    expect(hashes.size).toBe(expected);
    for (const [hash, description] of hashes) {
      const bundle = path.join(outdir, `asset.${hash}`, 'index.mjs');
      expect(statSync(bundle).size).toBeGreaterThan(1_000);
      // The cold-start budget of docs/performance.md: at most LEAD_BUNDLE_BUDGET_KB minified on the request
      // path (250 KB until the contract put the person lookup items, the quarantine, the per-key bound
      // and the challenge on it: sections 11 and 12; the bench's cold-start section measures what it costs). The
      // Meta worker consumes a queue (no caller waits on it) and carries the KMS, SQS and Secrets Manager
      // clients besides DynamoDB's: its own budget is 340 KB. The admin function answers the CRM's backend
      // (no lead sender waits on it) and carries the lead store and duplicate rules for releasing
      // quarantined submissions (CONTRACT.md section 11) and a person's access and erasure (section 12):
      // its own budget is 312 KB (300 KB until it connected call numbers too: section 13; 308 KB until it listed an
      // account's channels and their pace: section 16; 448 KB since it connects portal logins and pulls one asked for
      // through its API: the portals' readers, the XML parser, KMS and EventBridge clients, CONTRACT.md section 17; 452 KB
      // since accounts carry their retention and access answers each lead's retained_until: section 18; 456 KB since a pull
      // asked for through its API is a signed Invoke of the pull function, its fixed address's: section 17). The call
      // webhook carries, besides a lead's path, the per-key bound on its requests (docs/reference.md,
      // "Calls": one tenant's flood must not spend another's): 272 KB. The portal pull consumes a queue (no
      // caller waits on it) and carries a lead's path, the portals' readers, the XML parser, the KMS and
      // EventBridge clients: 384 KB.
      const budget = description.includes('Meta leadgen worker')
        ? 340
        : description.includes('portal pulls, each queued')
          ? 384
        : description.includes('admin API')
          ? 456
          : description.includes('Calls to project numbers')
            ? 272
            : LEAD_BUNDLE_BUDGET_KB;
      expect(statSync(bundle).size).toBeLessThanOrEqual(budget * 1024);
      expect(statSync(path.join(outdir, `asset.${hash}`, 'index.mjs.map')).size).toBeGreaterThan(0);
      // Only the environment credentials provider: no STS/SSO clients from the default chain.
      const code = readFileSync(bundle, 'utf8');
      expect(code).not.toMatch(/sso-oidc|AssumeRoleWithWebIdentity/);
      // Nor the SDK's event-stream codec (its header names): no client here has an operation that streams events (lib/constructs/lead-function.ts).
      expect(code).not.toContain(':message-type');
      // No Node built-in through an ESM import, static or dynamic: each would cost the cold start
      // its facade (lib/bundling/node-builtins.ts). A new one belongs in BUNDLED_NODE_BUILTINS.
      expect(code.match(/\bfrom\s*["'](node:)?[a-z_/]+["']|\bimport\s*\(\s*["']node:[a-z_/]+["']\s*\)/g) ?? []).toEqual([]);
    }
  });
});

/**
 * Each bundle loaded by a Lambda runtime client (AWS's aws-lambda-ric when installed, else the local
 * bootstrap: test/support/lambda-runtime.ts) with the template's environment, its tables the only
 * substitution (the names CloudFormation would give them, here tables on DynamoDB Local), and one
 * invocation each that goes through the function's middleware and, where it has one, its database.
 */
describe(`Each bundle in a Lambda runtime (${runtimeClient().kind}), with the template's environment`, () => {
  let tables: { config: string; leads: string };
  beforeAll(async () => {
    tables = await createTables(createDynamoDbClient({ endpoint: process.env.TEST_DYNAMODB_ENDPOINT! }), `t${randomUUID().slice(0, 8)}_`);
  });

  const post = (routePath: string, body: string, headers: Record<string, string> = {}) =>
    apiGatewayEvent({ method: 'POST', path: routePath, headers: { 'content-type': 'application/json', ...headers }, body });
  const invocations: Record<FunctionName, { event: unknown; answer: (payload: any) => void }> = {
    ...(Object.fromEntries(
      leadRoutes.map((route) => [
        route.endpoint,
        {
          // A key the Config table does not know: the key lookup reaches DynamoDB.
          event: post(route.path, '{}', { 'x-api-key': `unknown-${randomUUID()}` }),
          answer: (payload: any) => expect([payload.statusCode, JSON.parse(payload.body).message]).toEqual([401, 'Invalid API credentials']),
        },
      ]),
    ) as Record<(typeof leadRoutes)[number]['endpoint'], { event: unknown; answer: (payload: any) => void }>),
    'google-ads': {
      event: post(googleAdsSource.route.path, '{"lead_id":"x","form_id":1,"user_column_data":[],"api_version":"1.0","google_key":"wrong","is_test":true}'),
      answer: (payload) => expect([payload.statusCode, JSON.parse(payload.body).message]).toEqual([401, 'Invalid google_key']),
    },
    // A key the Config table does not know, in the query string as Exotel sends it: the key lookup reaches DynamoDB.
    calls: {
      event: apiGatewayEvent({
        method: 'GET',
        path: '/api/call-lead-webhook/exotel',
        routeKey: `GET ${callsSource.route.path}`,
        pathParameters: { provider: 'exotel' },
        rawQueryString: `key=unknown-${randomUUID()}&CallSid=c1`,
      }),
      answer: (payload) => expect([payload.statusCode, JSON.parse(payload.body).message]).toEqual([401, 'Invalid API credentials']),
    },
    admin: {
      event: apiGatewayEvent({
        method: 'GET',
        path: `${ADMIN_BASE_PATH}/accounts/acc-none`,
        routeKey: `GET ${ADMIN_BASE_PATH}/accounts/{accountId}`,
        pathParameters: { accountId: 'acc-none' },
      }),
      answer: (payload) => expect([payload.statusCode, JSON.parse(payload.body).message]).toEqual([404, 'Account not found']),
    },
    // Meta's POST without its signature is refused before anything is read.
    'meta-webhook': {
      event: post(metaSource.route.path, '{"object":"page","entry":[]}'),
      answer: (payload) => expect(payload.statusCode).toBeGreaterThanOrEqual(400),
    },
    'meta-worker': { event: { Records: [] }, answer: (payload) => expect(payload).toEqual({ batchItemFailures: [] }) },
    // WhatsApp's POST over 3 MiB is refused before its signature is checked, or anything read.
    whatsapp: {
      event: post(whatsappSource.route.path, `{"object":"whatsapp_business_account","padding":"${'x'.repeat(3 * 1024 * 1024)}"}`),
      answer: (payload) => expect([payload.statusCode, JSON.parse(payload.body).message]).toEqual([413, 'Payload too large']),
    },
    'lead-events': { event: [], answer: (payload) => expect(payload).toEqual([]) },
    // The schedule's tick on tables with no channel: one Query of the channels, nothing sent.
    'source-watch': {
      event: { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} },
      answer: (payload) => expect(payload).toMatchObject({ message: 'source watch checked', accounts: 0, events_sent: 0, failures: 0 }),
    },
    // The daily tick on tables with no account keeping anything for a time: one Query of the sweep's list, nothing erased.
    'retention-sweep': {
      event: { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} },
      answer: (payload) => expect(payload).toEqual({ accounts: 0, leads: 0, rejections: 0, complete: true }),
    },
    // An empty batch: nothing pulled, nothing failed.
    'portal-pull': { event: { Records: [] }, answer: (payload) => expect(payload).toEqual({ batchItemFailures: [] }) },
    // The schedule's tick on tables with no portal login: one Query of the logins, nothing queued.
    'portal-schedule': {
      event: { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} },
      answer: (payload) => expect(payload).toEqual({ queued: 0, unknownPortal: 0 }),
    },
    // A replayed Lead Created of a lead the table does not hold: the GetItem reaches DynamoDB, and the event is dropped.
    'lead-replays': {
      event: [{ messageId: 'm-1', body: JSON.stringify({ id: 'e-1', source: 'crm.lead-intake', 'detail-type': 'Lead Created', time: '2026-11-25T10:00:00Z', detail: { account_id: 'acc-none', lead: { id: 'L-none', projectID: 'PRJ-1' } } }) }],
      answer: (payload) => expect(payload).toEqual([]),
    },
  };

  test.each(functionNames)('%s loads through the runtime client and answers its invocation', async (name) => {
    const model = stackModel(synthesized.template.toJSON() as never);
    const fn = resources(synthesized.template, 'AWS::Lambda::Function')[model.functions[name].id]!;
    const environment = { ...model.functions[name].environment };
    // The one substitution: the physical table names, and where DynamoDB is.
    if (environment[configTable.envVar]) environment[configTable.envVar] = tables.config;
    if (environment[leadsTable.envVar]) environment[leadsTable.envVar] = tables.leads;
    if (environment[leadsTable.envVar] || environment[configTable.envVar]) environment[runtimeSettings.dynamodbEndpoint] = process.env.TEST_DYNAMODB_ENDPOINT!;
    const running = await startFunction({
      taskRoot: assetOf(fn),
      handler: fn.Properties!.Handler,
      functionName: model.functions[name].id,
      memorySize: fn.Properties!.MemorySize,
      timeoutSeconds: fn.Properties!.Timeout,
      environment,
      region: REGION,
    });
    try {
      const result = await running.invoke(invocations[name].event);
      if (!result.ok) throw new Error(`invocation error: ${JSON.stringify(result.error)}\n${running.output()}`);
      invocations[name].answer(result.payload);
    } finally {
      await running.stop();
    }
  }, 60_000);
});
