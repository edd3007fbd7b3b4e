/**
 * `npm run invoke -- <source> <event.json> [<event.json> ...]`: runs one declared source's real
 * handler in-process on API Gateway (HTTP API, payload 2.0) event files, in order, and prints each
 * response as the handler returned it. `meta` is the Meta webhook: its leadgen changes then go through
 * the worker in-process, as under `npm start` (shared/meta/local.ts), before the next event.
 *
 * With DYNAMODB_ENDPOINT set it uses that database as it is (for example the one `npm start` runs;
 * table names as for the admin CLI). Otherwise it starts a throw-away in-memory DynamoDB Local,
 * creates the tables and applies the seed (LEAD_INTAKE_SEED, or seed/demo.json), and stops it after.
 *
 * Each event gets the function's timeout through its Lambda context, FUNCTION_TIMEOUT_SECONDS (the
 * stack's 10 s by default), as in Lambda.
 *
 * Exit codes: 0 every event was answered (whatever its status), 1 an event could not be run, 2 bad
 * arguments.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { lambdaContext } from '../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadEvent, LeadResponse } from '../shared/http/lambda.ts';
import { createDocumentClient, createDynamoDbClient } from '../shared/dynamodb/client.ts';
import { DynamoDbRepository } from '../shared/dynamodb/repository.ts';
import { runtimeSettings } from '../shared/routes.ts';
import { leadSources } from '../shared/sources/registry.ts';
import { startDynamoDbLocal, type RunningDynamoDbLocal } from './dynamodb-local.ts';
import { DEFAULT_SEED_FILE, describeError, ensureTables, functionTimeoutMs, loadSourceHandlers, localFunctionName, localTableNames, projectRoot } from './local/environment.ts';
import { applySeed, readSeedFile } from './local/seed.ts';
import type { LocalWorkerSource, RunningLocalWorkerSource } from '../shared/sources/local-worker.ts';
import { applyLocalMetaSecrets } from '../shared/meta-app-local.ts';

/** Each declared source by its name on the command line (`website`, ..., `meta`, `google-ads`). */
const invokable = leadSources.map((source) => source.invokeName);

export interface InvokeIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The webhooks that make the lead in the request, by name: `google-ads runs the webhook of Google Ads lead forms`. */
const webhooks = leadSources
  .filter((source) => source.authentication !== 'api-key' && !source.worker)
  .map((source) => `${source.invokeName} runs the webhook of ${source.title}`)
  .join('; ');

/** The asynchronous sources, by name: the webhook, then its deliveries through its worker, in-process. */
const asynchronousWebhooks = leadSources
  .filter((source) => source.worker)
  .map((source) => `${source.invokeName} runs the webhook of ${source.title}, then its deliveries through its worker (its settings as for npm start)`)
  .join('; ');

const USAGE = `Usage: npm run invoke -- <${invokable.join('|')}> <event.json> [<event.json> ...]
  Runs the endpoint's handler in-process on each API Gateway event file, in order, and prints its response.
  With DYNAMODB_ENDPOINT set it uses that database; otherwise a throw-away in-memory DynamoDB Local with
  the seed (LEAD_INTAKE_SEED, default seed/demo.json). Each event gets the function timeout,
  FUNCTION_TIMEOUT_SECONDS (default 10), as in Lambda. Example events are in events/.
  ${asynchronousWebhooks}. ${webhooks}.
`;

/** Reads an event file: an API Gateway HTTP API event (payload format 2.0). */
export const readEvent = async (file: string): Promise<LeadEvent> => {
  let event: unknown;
  try {
    event = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`${file}: cannot read an event from it (${reason})`);
  }
  const shape = event as Partial<LeadEvent> | null;
  if (typeof shape !== 'object' || shape === null || shape.version !== '2.0' || typeof shape.requestContext?.http?.method !== 'string') {
    throw new Error(`${file}: not an API Gateway HTTP API event (payload format 2.0: version "2.0", requestContext.http.method)`);
  }
  return event as LeadEvent;
};

export const runInvoke = async (argv: readonly string[], io: InvokeIo): Promise<number> => {
  const [endpoint, ...files] = argv;
  if (endpoint === '--help' || endpoint === '-h') {
    io.stdout(USAGE);
    return 0;
  }
  if (endpoint === undefined || !invokable.includes(endpoint) || files.length === 0) {
    const problem = endpoint === undefined ? 'no endpoint given' : !invokable.includes(endpoint) ? `unknown endpoint ${JSON.stringify(endpoint)}` : 'no event file given';
    io.stderr(`invoke: ${problem}\n${USAGE}`);
    return 2;
  }

  let dynamo: RunningDynamoDbLocal | undefined;
  let running: RunningLocalWorkerSource | undefined;
  try {
    const timeoutMs = functionTimeoutMs(io.env);
    const events = await Promise.all(files.map((file) => readEvent(path.resolve(file))));
    const tables = localTableNames(io.env);
    let databaseEndpoint = io.env[runtimeSettings.dynamodbEndpoint];
    if (!databaseEndpoint) {
      const seedFile = io.env.LEAD_INTAKE_SEED || DEFAULT_SEED_FILE;
      const seed = await readSeedFile(path.resolve(seedFile));
      // Java's start is most of the run's time (seconds): say what it is before it.
      io.stdout(`invoke: starting a throw-away in-memory DynamoDB Local (Java) with the seed ${path.relative(process.cwd(), path.resolve(seedFile)) || seedFile} (set DYNAMODB_ENDPOINT to use a running one)...\n`);
      dynamo = await startDynamoDbLocal();
      databaseEndpoint = dynamo.endpoint;
      const client = createDynamoDbClient({ endpoint: databaseEndpoint });
      await ensureTables(client, tables);
      await applySeed(new DynamoDbRepository(createDocumentClient({ client }), tables), seed);
    }
    const source = leadSources.find((candidate) => candidate.invokeName === endpoint)!;
    // A source signed by the Meta app that makes its leads in the request (WhatsApp's) reads the app's
    // secrets from this process's environment, as npm start gives them: the event's own, else the local ones.
    if (source.authentication === 'platform-signature' && !source.worker) applyLocalMetaSecrets(process.env, io.env);
    // An asynchronous source (Meta's) runs its webhook, then its queue's deliveries through the worker,
    // in-process (its descriptor's `worker.local`), as under npm start.
    const [served] = await loadSourceHandlers(databaseEndpoint, tables, {
      only: source.name,
      asynchronous: async (asynchronousSource) => {
        const workerEnv = { ...process.env, ...io.env, [runtimeSettings.dynamodbEndpoint]: databaseEndpoint, CONFIG_TABLE_NAME: tables.config, LEADS_TABLE_NAME: tables.leads };
        const local = ((await import(path.join(projectRoot, asynchronousSource.worker!.local))) as { default: LocalWorkerSource }).default;
        running = await local.start(workerEnv);
        return running.webhook;
      },
    });
    const handler = served!.handler;
    for (const [i, event] of events.entries()) {
      if (files.length > 1) io.stdout(`# ${files[i]}\n`);
      // Each event gets the function's timeout (FUNCTION_TIMEOUT_SECONDS, else the stack's), as in Lambda.
      const response: LeadResponse = await handler(event, lambdaContext(localFunctionName(source), timeoutMs) as LeadContext);
      io.stdout(`${JSON.stringify(response, null, 2)}\n`);
      // The leads of a notification are made before the next event runs (and before the database stops).
      await running?.idle();
    }
    return 0;
  } catch (error) {
    io.stderr(`invoke: ${describeError(error)}\n`);
    return 1;
  } finally {
    await running?.close();
    await dynamo?.stop();
  }
};

if (import.meta.main) {
  // The handler's request log goes to stdout as in Lambda; the responses follow it.
  process.exitCode = await runInvoke(process.argv.slice(2), {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}
