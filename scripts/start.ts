/**
 * `npm start`: the service on a laptop (CONTRACT.md section 6). Starts DynamoDB Local (unless
 * DYNAMODB_ENDPOINT names a running one), creates the missing tables from the stack's definitions,
 * applies the seed, and serves every declared source's route (shared/sources/registry.ts) and the admin
 * API on http://127.0.0.1:$PORT through the real handlers.
 * Ctrl-C or SIGTERM stops the HTTP server and DynamoDB Local.
 *
 *   PORT                  HTTP port (3000)
 *   DYNAMODB_PORT         port of the embedded DynamoDB Local (8000)
 *   LEAD_INTAKE_DATA_DIR  its data folder (.data); `:memory:` keeps nothing
 *   LEAD_INTAKE_SEED      seed file (seed/demo.json)
 *   DYNAMODB_ENDPOINT     use this DynamoDB instead of starting one
 *   FUNCTION_TIMEOUT_SECONDS  each request's function timeout, as in Lambda (the stack's, 10)
 *   META_APP_SECRET, META_VERIFY_TOKEN, META_GRAPH_API_URL   the Meta webhook (shared/meta/local.ts); the first two the WhatsApp webhook's too
 *   WHATSAPP_CONVERSATION_DAYS  the WhatsApp conversation window, in days (7; a fraction allowed: 0.0001 is under 9 s)
 *   LEAD_INTAKE_ADMIN_ACCESS_KEY_ID / LEAD_INTAKE_ADMIN_SECRET_ACCESS_KEY
 *                         credentials the admin API's SigV4 signatures must use (local defaults)
 *   AWS_REGION            the region admin signatures must name (any when unset)
 *   LEAD_EVENTS_WEBHOOK_URL            post each Lead Created and Lead Erased event there, as the deployed delivery does
 *   LEAD_EVENTS_WEBHOOK_AUTHORIZATION  its Authorization header (never printed)
 *   LEAD_EVENTS_RETRY_DELAY_MS         first wait before a retry (1000; it doubles, up to 30 s)
 *   SILENCE_CHECK_SECONDS              how often the quiet-source watch checks the channels (60)
 *   SILENCE_MIN_LEADS, SILENCE_MIN_MINUTES, SILENCE_QUIET_HOURS   its settings (10, 360, 22:00-08:00; CONTRACT.md section 16)
 *   PORTAL_PULL_SECONDS                how often every connected portal login is pulled (60; CONTRACT.md section 17)
 *   PORTAL_99ACRES_URL, PORTAL_MAGICBRICKS_URL, PORTAL_HOUSING_URL   the portals to pull; each unset: its stand-in, served here
 *   PORTAL_FAILING_MINUTES, PORTAL_PULL_OVERLAP_MINUTES   the pull's settings (60, 15; a fraction allowed)
 *   RETENTION_SWEEP_SECONDS            how often the retention sweep erases aged-out leads and records (3600; CONTRACT.md section 18)
 *   RETENTION_DAY_SECONDS              the length of a retention day (86400; 1 makes an account's 30 days pass in 30 s)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import * as path from 'node:path';
import type { Server } from 'node:http';
import { createDocumentClient, createDynamoDbClient } from '../shared/dynamodb/client.ts';
import { DynamoDbStoredLeads } from '../shared/dynamodb/stored-leads.ts';
import { DynamoDbRepository } from '../shared/dynamodb/repository.ts';
import { ADMIN_BASE_PATH, runtimeSettings } from '../shared/routes.ts';
import { apiKeySources, channelConnectionFields, leadSources } from '../shared/sources/registry.ts';
import { JavaMissingError, startDynamoDbLocal, type RunningDynamoDbLocal } from './dynamodb-local.ts';
import { adminCredentialsFrom, adminCredentialSettings, DEFAULT_ADMIN_CREDENTIALS, type AdminCredentials } from './local/admin-auth.ts';
import { DEFAULT_SEED_FILE, describeDatabaseFailure, describeError, ensureTables, functionTimeoutMs, loadAdminHandler, loadSourceHandlers, localTableNames, projectRoot } from './local/environment.ts';
import { createLocalServer } from './local/http-server.ts';
import { asTheLeadIsNow, eventEnvelope, startLeadStreamReader, webhookSender, type DeliveredEvent, type LeadStreamReader, type WebhookSender } from './local/lead-events.ts';
import type { SilenceSettings } from '../shared/domain/source-watch.ts';
import { channelWatch, countStreamRecords, silenceSettingsFromEnvironment } from '../shared/source-watch.ts';
import type { LocalWorkerSource, RunningLocalWorkerSource } from '../shared/sources/local-worker.ts';
import { applyLocalMetaDefaults } from '../shared/meta-app-local.ts';
import { applySeed, demoKeyOf, readSeedFile, type Seed } from './local/seed.ts';
import { portalPullSeconds, startPortalPulls, type RunningPortalPulls } from './local/portal-pulls.ts';
import { retentionSweepSettings, startRetentionSweeps, type RunningRetentionSweeps } from './local/retention-sweeps.ts';

const env = process.env;
const HOST = '127.0.0.1';

let stopping = false;
/** Set once the banner is printed: a database that stops before then failed to start, after it stopped while serving. */
let servingStarted = false;
let dynamoStarting: Promise<RunningDynamoDbLocal> | undefined;
let dynamoProcess: ChildProcess | undefined;
let server: Server | undefined;
/** The asynchronous sources running in this process (their descriptors' `worker.local`): what their banner lines fill in. */
const runningWorkers: RunningLocalWorkerSource[] = [];
let leadEvents: { reader: LeadStreamReader; sender: WebhookSender | undefined } | undefined;
/** The quiet-source watch's check, every SILENCE_CHECK_SECONDS. */
let silenceChecks: { stop(): Promise<void> } | undefined;
/** The portal logins' pulls, every PORTAL_PULL_SECONDS, with the stand-ins of the portals whose URL is unset. */
let portalPulls: RunningPortalPulls | undefined;
/** The retention sweep, every RETENTION_SWEEP_SECONDS. */
let retentionSweeps: RunningRetentionSweeps | undefined;

/** The function timeout each request gets (FUNCTION_TIMEOUT_SECONDS), once read. */
let requestTimeoutMs = 0;

/**
 * Stops what was started, in reverse order, and exits. A second signal does not start it again.
 * With `drain`, requests in flight are answered first (each within its function timeout), as
 * Lambda would answer them; new connections are refused at once.
 */
const shutdown = async (code: number, { drain = false } = {}): Promise<never> => {
  if (!stopping) {
    stopping = true;
    await silenceChecks?.stop().catch(() => undefined);
    await portalPulls?.stop().catch(() => undefined);
    await retentionSweeps?.stop().catch(() => undefined);
    leadEvents?.sender?.stop();
    await leadEvents?.reader.stop().catch(() => undefined);
    if (server) {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      server.closeIdleConnections();
      if (drain) await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, requestTimeoutMs + 1_000))]);
      server.closeAllConnections();
    }
    const dynamo = await dynamoStarting?.catch(() => undefined);
    await dynamo?.stop();
  }
  process.exit(code);
};

const fail = async (message: string): Promise<never> => {
  process.stderr.write(`npm start: ${message}\n`);
  return shutdown(1);
};

const portSetting = (name: string, fallback: number): number => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    process.stderr.write(`npm start: ${name} must be a port number (1-65535), not ${JSON.stringify(value)}\n`);
    process.exit(1);
  }
  return port;
};

/** True when nothing listens on the port (checked before starting anything). */
const portIsFree = (port: number, host: string): Promise<boolean> =>
  new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(false) : reject(error)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });

const listen = (httpServer: Server, port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, HOST, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });

/** A string for a POSIX shell, inside single quotes. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The quiet-source watch's settings (SILENCE_*), checked: a malformed one stops npm start, naming it. */
const silenceSetting = (): { readonly settings: SilenceSettings; readonly checkSeconds: number } | undefined => {
  const text = env.SILENCE_CHECK_SECONDS;
  const checkSeconds = text === undefined || text === '' ? 60 : Number(text);
  if (!Number.isFinite(checkSeconds) || checkSeconds <= 0) {
    process.stderr.write(`npm start: SILENCE_CHECK_SECONDS must be a number of seconds above 0, not ${JSON.stringify(text)}\n`);
    return undefined;
  }
  try {
    return { settings: silenceSettingsFromEnvironment(env), checkSeconds };
  } catch (error) {
    process.stderr.write(`npm start: ${(error as Error).message}\n`);
    return undefined;
  }
};

/** Runs `check` every `seconds`, one at a time, until stopped. */
const every = (seconds: number, check: () => Promise<void>) => {
  let running = true;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, seconds * 1000).unref();
      });
      if (running) await check();
    }
  })();
  return {
    stop: async () => {
      running = false;
      wake?.();
      await loop;
    },
  };
};

/** LEAD_EVENTS_WEBHOOK_URL and its companions, checked; undefined when unset. */
const webhookSetting = () => {
  const url = env.LEAD_EVENTS_WEBHOOK_URL;
  if (!url) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    process.stderr.write(`npm start: LEAD_EVENTS_WEBHOOK_URL must be an http:// or https:// URL, not ${JSON.stringify(url)}\n`);
    process.exit(1);
  }
  const delay = env.LEAD_EVENTS_RETRY_DELAY_MS ? Number(env.LEAD_EVENTS_RETRY_DELAY_MS) : undefined;
  if (delay !== undefined && !(Number.isInteger(delay) && delay > 0)) {
    process.stderr.write(`npm start: LEAD_EVENTS_RETRY_DELAY_MS must be a whole number of milliseconds, not ${JSON.stringify(env.LEAD_EVENTS_RETRY_DELAY_MS)}\n`);
    process.exit(1);
  }
  return { url, ...(env.LEAD_EVENTS_WEBHOOK_AUTHORIZATION && { authorization: env.LEAD_EVENTS_WEBHOOK_AUTHORIZATION }), ...(delay && { firstDelayMs: delay }) };
};

const eventsBanner = (webhook: ReturnType<typeof webhookSetting>): string[] => [
  '',
  webhook
    ? `Lead events:         each Lead Created and Lead Erased event is POSTed to ${webhook.url}${webhook.authorization ? ' (with LEAD_EVENTS_WEBHOOK_AUTHORIZATION)' : ''}`
    : 'Lead events:         set LEAD_EVENTS_WEBHOOK_URL to receive each Lead Created and Lead Erased event, as the deployed delivery sends it',
];

const silenceBanner = ({ settings, checkSeconds }: { readonly settings: SilenceSettings; readonly checkSeconds: number }): string => {
  const quiet = settings.quietHours
    ? `${String(Math.floor(settings.quietHours.start / 60)).padStart(2, '0')}:${String(settings.quietHours.start % 60).padStart(2, '0')}-${String(Math.floor(settings.quietHours.end / 60)).padStart(2, '0')}:${String(settings.quietHours.end % 60).padStart(2, '0')}`
    : 'none';
  return `Quiet sources:       checked every ${checkSeconds} s (SILENCE_CHECK_SECONDS): Source Silent past max(${settings.minMinutes} min, 4 median gaps) outside quiet hours ${quiet}, for channels of ${settings.minLeads}+ leads in 14 days (admin sources)`;
};

/** The admin API's lines: where it is, and the credentials to sign with (the secret only when it is the default). */
const adminBanner = (baseUrl: string, credentials: AdminCredentials, region: string | undefined): string[] => [
  '',
  `Admin API:           ${baseUrl}${ADMIN_BASE_PATH} (AWS SigV4, service execute-api, region ${region ?? 'any'})`,
  `  access key id:     ${credentials.accessKeyId}${env[adminCredentialSettings.accessKeyId] ? ` (${adminCredentialSettings.accessKeyId})` : ''}`,
  `  secret access key: ${credentials.secretAccessKey === DEFAULT_ADMIN_CREDENTIALS.secretAccessKey ? credentials.secretAccessKey : `from ${adminCredentialSettings.secretAccessKey}`}`,
];

const banner = (baseUrl: string, dynamodb: string, storage: string, seedFile: string, seed: Seed, admin: string[]): string => {
  const lines = [
    '',
    `Lead intake service: ${baseUrl}`,
    `DynamoDB:            ${dynamodb} (${storage})`,
    `Seed:                ${path.relative(process.cwd(), seedFile) || seedFile} (${seed.accounts.length} account(s), ${seed.apiKeys.length} API key(s))`,
  ];
  const demo = demoKeyOf(seed, apiKeySources.map((source) => source.name));
  if (!demo) {
    lines.push('', 'The seed has no active API key of an account it defines that may call the four lead endpoints: create one with `npm run admin -- create-key --account ID`.');
  } else {
    const { key, account } = demo;
    const project = [...account.projects.values()][0];
    const campaign = [...account.campaigns.values()].find((c) => c.projectId === project?.id);
    const common = { projectID: project?.id ?? '<project id>', campaignID: campaign?.id ?? '<campaign id>' };
    const bodies: Record<string, Record<string, string>> = {
      website: { name: 'Asha Verma', mobile_number: '+91 98765 43210', ...common, sub_source: [...account.websiteSubSources][0] ?? '<website sub source>' },
      portala: { name: 'Ravi Kumar', mobile_number: '9876500001', ...common, notes: '2 BHK, ready to move' },
      portalb: { name: 'Meera Iyer', mobile_number: '9876500002', ...common, notes: 'Site visit on Sunday' },
      social: { name: 'Kabir Shah', mobile_number: '9876500003', ...common, platform: [...account.socialSubSources][0] ?? 'fb' },
    };
    lines.push(`Demo API key:        ${key} (account ${account.id})`, '', 'Try it:');
    for (const source of apiKeySources) {
      lines.push(
        `curl -s -X POST ${baseUrl}${source.route.path} -H ${shellQuote(`x-api-key: ${key}`)} -H 'content-type: application/json' -d ${shellQuote(JSON.stringify(bodies[source.name]))}`,
      );
    }
    lines.push('', `Leads: DYNAMODB_ENDPOINT=${dynamodb} npm run -s admin -- leads --account ${account.id}`);
  }
  // Every other source: its route and how it is reached (its descriptor's banner line, with what this
  // run knows filled in: `{seed.<field>}` the seed's count of it, and what an asynchronous source running
  // here says of itself (`{graph}`: where Meta's leads are read).
  const known: Record<string, string> = Object.assign({}, ...runningWorkers.map((running) => running.banner));
  const filled = (note: string) =>
    note.replace(/\{([\w.]+)\}/g, (placeholder, name: string) => {
      if (!name.startsWith('seed.')) return known[name] ?? placeholder;
      const entries = (seed as unknown as Record<string, unknown>)[name.slice('seed.'.length)];
      return String(Array.isArray(entries) ? entries.length : 0);
    });
  for (const source of leadSources) {
    if (source.banner) lines.push(`${`${source.banner.label}:`.padEnd(21)}${baseUrl}${source.route.path} (${filled(source.banner.note)})`);
  }
  lines.push(
    `Landing page:        cd examples/landing-page && python3 -m http.server 8080 --bind 127.0.0.1, then open http://127.0.0.1:8080/${
      baseUrl === 'http://127.0.0.1:3000' ? '' : `?api_base=${baseUrl}`
    }`,
    `API documentation:   ${baseUrl}/docs`,
  );
  lines.push(...admin, '', 'Ctrl-C stops the service and its database.', '');
  return lines.join('\n');
};

const main = async () => {
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  // Last resort for an abnormal exit: never leave DynamoDB Local's Java process behind.
  process.on('exit', () => {
    if (dynamoProcess && dynamoProcess.exitCode === null && dynamoProcess.signalCode === null) dynamoProcess.kill('SIGKILL');
  });

  // Should whatever started this process die without passing a signal on (a shell wrapper killed by
  // its parent), stop anyway rather than leave the service and DynamoDB Local running unowned.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void shutdown(0);
  }, 500).unref();

  const port = portSetting('PORT', 3000);
  const dynamoPort = portSetting('DYNAMODB_PORT', 8000);
  const seedFile = path.resolve(env.LEAD_INTAKE_SEED || DEFAULT_SEED_FILE);
  const dataDirSetting = env.LEAD_INTAKE_DATA_DIR || '.data';
  const inMemory = dataDirSetting === ':memory:';
  const external = env[runtimeSettings.dynamodbEndpoint];

  // Everything that can be checked is checked before anything starts.
  try {
    requestTimeoutMs = functionTimeoutMs(env);
  } catch (error) {
    return fail(describeError(error));
  }
  const webhook = webhookSetting();
  const silence = silenceSetting();
  if (!silence) return shutdown(1);
  try {
    portalPullSeconds(env);
    retentionSweepSettings(env);
  } catch (error) {
    return fail(describeError(error));
  }
  let seed: Seed;
  try {
    seed = await readSeedFile(seedFile);
  } catch (error) {
    return fail(describeError(error));
  }
  if (!(await portIsFree(port, HOST))) return fail(`port ${port} is already in use on ${HOST}; set PORT to a free port`);

  let endpoint: string;
  let storage: string;
  if (external) {
    endpoint = external;
    storage = 'DYNAMODB_ENDPOINT: not started here';
    process.stdout.write(`npm start: preparing the tables and the seed on the DynamoDB at ${endpoint}, then the service on http://${HOST}:${port}...\n`);
  } else {
    if (!(await portIsFree(dynamoPort, '0.0.0.0'))) {
      return fail(
        `DynamoDB port ${dynamoPort} is already in use; set DYNAMODB_PORT to a free port, or DYNAMODB_ENDPOINT=http://127.0.0.1:${dynamoPort} to use the database already there`,
      );
    }
    const dataDir = inMemory ? undefined : path.resolve(dataDirSetting);
    if (dataDir) await mkdir(dataDir, { recursive: true });
    storage = dataDir ? `data in ${path.relative(process.cwd(), dataDir) || dataDir}, kept across restarts` : 'in memory, nothing is kept';
    // Java's start is most of the wait before the banner (seconds; more on a busy machine): say what it is at once.
    process.stdout.write(`npm start: starting DynamoDB Local (Java) on port ${dynamoPort} (${storage}), then the tables, the seed and the service on http://${HOST}:${port}...\n`);
    dynamoStarting = startDynamoDbLocal({ port: dynamoPort, ...(dataDir && { dataDir }) });
    let dynamo: RunningDynamoDbLocal;
    try {
      dynamo = await dynamoStarting;
    } catch (error) {
      if (error instanceof JavaMissingError) return fail(`${error.message}; or set DYNAMODB_ENDPOINT to a DynamoDB that is already running`);
      return fail(`DynamoDB Local did not start: ${describeError(error)}`);
    }
    dynamoProcess = dynamo.process;
    if (stopping) return;
    dynamo.process.once('exit', async (code, signal) => {
      if (stopping) return;
      // Another process took the port between the check above and Java's bind (its database answered the
      // start-up probe): the same one line as a port taken before the start.
      if (!servingStarted && !(await portIsFree(dynamoPort, '0.0.0.0'))) {
        return void fail(
          `DynamoDB port ${dynamoPort} is already in use; set DYNAMODB_PORT to a free port, or DYNAMODB_ENDPOINT=http://127.0.0.1:${dynamoPort} to use the database already there`,
        );
      }
      process.stderr.write(`npm start: DynamoDB Local stopped unexpectedly (${signal ?? `exit code ${code}`}); answering the requests in flight, then stopping\n`);
      void shutdown(1, { drain: true });
    });
    endpoint = dynamo.endpoint;
  }

  const tables = localTableNames(env);
  try {
    const client = createDynamoDbClient({ endpoint });
    await ensureTables(client, tables);
    await applySeed(new DynamoDbRepository(createDocumentClient({ client }), tables), seed);
  } catch (error) {
    return fail(describeDatabaseFailure(error, endpoint) ?? `could not prepare the database at ${endpoint}: ${describeError(error)}`);
  }
  if (stopping) return;

  // Locally an admin command should apply at once: the handlers re-read keys and settings each time.
  env[runtimeSettings.configCacheTtlSeconds] ??= '0';
  // CloudWatch embedded-metric lines are for AWS; locally they would bury the request log. Opt in with
  // POWERTOOLS_METRICS_DISABLED=false.
  env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  // Every declared source's real handler; an asynchronous source's webhook with its queue and worker in
  // this process (its descriptor's `worker.local`), started once the functions' environment is set. With
  // no Graph API named, Meta's local stand-in serves its leads, so the demo page's notifications become leads.
  // Every source signed by the Meta app (Meta's leadgen, WhatsApp's messages) reads its local secrets.
  applyLocalMetaDefaults(env);
  const sources = await loadSourceHandlers(endpoint, tables, {
    asynchronous: async (source) => {
      const local = ((await import(path.join(projectRoot, source.worker!.local))) as { default: LocalWorkerSource }).default;
      const running = await local.start(env, (message) => process.stderr.write(`npm start: ${message}\n`));
      runningWorkers.push(running);
      return running.webhook;
    },
  });
  const adminCredentials = adminCredentialsFrom(env);
  const region = env.AWS_REGION || undefined;
  server = createLocalServer({
    handlers: Object.fromEntries(sources.map(({ source, handler }) => [source.name, handler])),
    functionTimeoutMs: requestTimeoutMs,
    admin: {
      handler: await loadAdminHandler(),
      credentials: adminCredentials,
      ...(region && { region }),
      // API Gateway answers a bad signature with a bare 403; locally the developer is told why.
      onRefused: (line) => process.stdout.write(`admin auth: ${line}\n`),
    },
    onHandlerError: (error) => process.stderr.write(`npm start: a handler failed: ${describeError(error)}\n`),
  });
  // The stream is read with or without a webhook: the quiet-source watch counts every stored lead.
  const dynamodb = createDynamoDbClient({ endpoint });
  const db = createDocumentClient({ client: dynamodb });
  const sender =
    webhook &&
    webhookSender({
      ...webhook,
      // Each Lead Created is sent as its lead is now: an erasure that came while it waited is not undone.
      current: asTheLeadIsNow(new DynamoDbStoredLeads(db, tables.leads)),
      log: (line) => process.stdout.write(`lead events: ${line}\n`),
    });
  const watch = channelWatch({
    db,
    leadsTable: tables.leads,
    configTable: tables.config,
    settings: silence.settings,
    events: {
      // Delivered as the deployed bus delivers it; without a webhook, a line on the terminal.
      publish: async (event) => {
        const delivered = eventEnvelope(event);
        if (sender) void sender.deliver(delivered);
        else process.stdout.write(`source watch: ${JSON.stringify(delivered)}\n`);
      },
    },
    onFailure: (error) => process.stderr.write(`npm start: a Source Silent event failed: ${describeError(error)}\n`),
  });
  try {
    const reader = await startLeadStreamReader({
      dynamodb,
      endpoint,
      leadsTable: tables.leads,
      onEvent: (event) => void sender?.deliver(event),
      onRecords: async (records) => {
        const failed = await countStreamRecords(watch, records, channelConnectionFields);
        if (failed) throw failed.error;
      },
      onError: (error) => process.stderr.write(`npm start: reading the Leads stream failed: ${describeError(error)}\n`),
    });
    leadEvents = { reader, sender };
  } catch (error) {
    return fail(`could not read the Leads table's stream at ${endpoint}: ${describeError(error)}`);
  }
  // Kept at once, not only at the first check: `admin sources` reads the settings the watch judges with.
  try {
    await watch.saveSettings();
  } catch (error) {
    return fail(describeDatabaseFailure(error, endpoint) ?? `could not keep the quiet-source watch's settings: ${describeError(error)}`);
  }
  try {
    portalPulls = await startPortalPulls({
      endpoint,
      tables,
      env,
      root: projectRoot,
      // Delivered as the deployed bus delivers it; without a webhook, a line on the terminal.
      events: {
        publish: async (event) => {
          const delivered = { id: crypto.randomUUID(), source: 'crm.lead-intake', 'detail-type': event.detailType, time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), detail: event.detail };
          if (sender) void sender.deliver(delivered as unknown as DeliveredEvent);
          else process.stdout.write(`portals: ${JSON.stringify(delivered)}\n`);
        },
      },
      log: (line) => process.stdout.write(`portals: ${line}\n`),
    });
  } catch (error) {
    return fail(`could not start the portals' pulls: ${describeError(error)}`);
  }
  retentionSweeps = startRetentionSweeps({ db, tables, env, log: (line) => process.stdout.write(`retention: ${line}\n`) });
  silenceChecks = every(silence.checkSeconds, async () => {
    await watch.check().catch((error: unknown) => process.stderr.write(`npm start: the quiet-source check failed: ${describeError(error)}\n`));
  });
  try {
    await listen(server, port);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(code === 'EADDRINUSE' ? `port ${port} is already in use on ${HOST}; set PORT to a free port` : describeError(error));
  }
  if (stopping) return;
  servingStarted = true;
  process.stdout.write(`${banner(`http://${HOST}:${port}`, endpoint, storage, seedFile, seed, [...adminBanner(`http://${HOST}:${port}`, adminCredentials, region), ...eventsBanner(webhook), silenceBanner(silence), ...portalPulls.banner, '', ...retentionSweeps.banner])}\n`);
};

main().catch((error: unknown) => fail(describeError(error)));
