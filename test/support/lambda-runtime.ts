/**
 * A function's bundle run as Lambda runs it: a process of its own with the function's environment plus
 * what Lambda sets (AWS_LAMBDA_RUNTIME_API, LAMBDA_TASK_ROOT, _HANDLER, the function's name, memory,
 * region and credentials), its handler loaded by a runtime client that takes invocations from a local
 * Lambda Runtime API (the 2018-06-01 protocol) served here.
 *
 * The runtime client is AWS's own `aws-lambda-ric` when it can be found (AWS_LAMBDA_RIC naming its
 * index.mjs, or the package installed): it builds native code at install, so it is not a dependency of
 * the project (docs/decisions/0008-iam-check-and-runtime-client.md). Otherwise ./lambda-bootstrap.mjs,
 * which follows the same protocol and loads the handler as the Node.js runtime does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The runtime client: AWS's when present, the local bootstrap otherwise. */
export const runtimeClient = (): { readonly kind: 'aws-lambda-ric' | 'local bootstrap'; readonly entry: string } => {
  const named = process.env.AWS_LAMBDA_RIC;
  if (named && existsSync(named)) return { kind: 'aws-lambda-ric', entry: named };
  try {
    const manifest = createRequire(import.meta.url).resolve('aws-lambda-ric/package.json');
    return { kind: 'aws-lambda-ric', entry: path.join(path.dirname(manifest), 'index.mjs') };
  } catch {
    return { kind: 'local bootstrap', entry: path.join(projectRoot, 'test/support/lambda-bootstrap.mjs') };
  }
};

export type Invocation = { readonly ok: true; readonly payload: any } | { readonly ok: false; readonly error: any };

export interface RunningFunction {
  readonly invoke: (event: unknown) => Promise<Invocation>;
  /** The init error the runtime client reported, if the handler could not be loaded. */
  readonly initError: () => unknown;
  readonly output: () => string;
  readonly stop: () => Promise<void>;
}

export interface FunctionSettings {
  /** The folder of the bundle (`index.mjs`), as Lambda unpacks it to /var/task. */
  readonly taskRoot: string;
  readonly handler: string;
  readonly functionName: string;
  readonly memorySize: number;
  readonly timeoutSeconds: number;
  /** The template's environment variables, resolved. */
  readonly environment: Record<string, string>;
  readonly region: string;
}

const readBody = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : null;
};

export const startFunction = async (settings: FunctionSettings): Promise<RunningFunction> => {
  const waitingForNext: ServerResponse[] = [];
  const queued: Array<{ id: string; event: unknown }> = [];
  const pending = new Map<string, (result: Invocation) => void>();
  let initError: unknown;
  let onInitError: ((error: unknown) => void) | undefined;

  const dispatch = () => {
    while (waitingForNext.length > 0 && queued.length > 0) {
      const response = waitingForNext.shift()!;
      const { id, event } = queued.shift()!;
      response.writeHead(200, {
        'content-type': 'application/json',
        'lambda-runtime-aws-request-id': id,
        'lambda-runtime-deadline-ms': String(Date.now() + settings.timeoutSeconds * 1000),
        'lambda-runtime-invoked-function-arn': `arn:aws:lambda:${settings.region}:111122223333:function:${settings.functionName}`,
        'lambda-runtime-trace-id': `Root=1-${Date.now().toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)};Sampled=0`,
      });
      response.end(JSON.stringify(event));
    }
  };

  const server = createServer(async (request, response) => {
    const url = request.url ?? '';
    if (request.method === 'GET' && url.endsWith('/runtime/invocation/next')) {
      waitingForNext.push(response);
      dispatch();
      return;
    }
    const body = await readBody(request);
    const answered = /\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(url);
    if (answered) {
      pending.get(answered[1]!)?.(answered[2] === 'response' ? { ok: true, payload: body } : { ok: false, error: body });
      pending.delete(answered[1]!);
    } else if (url.endsWith('/runtime/init/error')) {
      initError = body;
      onInitError?.(body);
    }
    response.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"OK"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const runtimeApi = `127.0.0.1:${(server.address() as AddressInfo).port}`;

  const client = runtimeClient();
  const projectNode = path.join(projectRoot, 'node_modules/.bin/node');
  let output = '';
  const child: ChildProcess = spawn(existsSync(projectNode) ? projectNode : process.execPath, [client.entry], {
    cwd: settings.taskRoot,
    env: {
      // What Lambda sets, then the function's own variables (they cannot override Lambda's reserved ones).
      PATH: process.env.PATH,
      LANG: 'en_US.UTF-8',
      TZ: ':UTC',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      AWS_LAMBDA_FUNCTION_NAME: settings.functionName,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(settings.memorySize),
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${settings.functionName}`,
      AWS_LAMBDA_LOG_STREAM_NAME: `2026/01/01/[$LATEST]${randomUUID().replace(/-/g, '')}`,
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      AWS_REGION: settings.region,
      AWS_DEFAULT_REGION: settings.region,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SESSION_TOKEN: 'local',
      ...settings.environment,
      AWS_LAMBDA_RUNTIME_API: runtimeApi,
      LAMBDA_TASK_ROOT: settings.taskRoot,
      LAMBDA_RUNTIME_DIR: path.dirname(client.entry),
      _HANDLER: settings.handler,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));

  const invoke = (event: unknown) =>
    new Promise<Invocation>((resolve, reject) => {
      const id = randomUUID();
      pending.set(id, resolve);
      onInitError = (error) => reject(new Error(`init error: ${JSON.stringify(error)}`));
      if (initError) onInitError(initError);
      void exited.then(() => pending.has(id) && reject(new Error(`the runtime exited before answering: ${output}`)));
      queued.push({ id, event });
      dispatch();
    });

  const stop = async () => {
    child.kill('SIGKILL');
    await exited;
    for (const response of waitingForNext) response.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return { invoke, initError: () => initError, output: () => output, stop };
};
