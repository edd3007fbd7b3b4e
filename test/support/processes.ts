/** Child processes of the end-to-end tests: waiting on them, and proving none is left behind. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

export const waitFor = async (condition: () => boolean, what: string, timeoutMs = 45_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const pgrep = (args: string[]): number[] => {
  try {
    return execFileSync('pgrep', args, { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
};

/** Process ids whose command line matches a pattern (pgrep -f). */
export const processesMatching = (pattern: string): number[] => pgrep(['-f', pattern]);

/** Process ids still alive in a process group. */
export const processGroup = (pgid: number): number[] => pgrep(['-g', String(pgid)]);

/** DynamoDB Local processes listening on a port. */
export const dynamoDbLocalOn = (port: number): number[] => processesMatching(`DynamoDBLocal.jar.* -port ${port}( |$)`);

/** Ends a process group for good (the cleanup after a failed test). */
export const killGroup = (pgid: number | undefined) => {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // gone already
  }
};

export interface StartedService {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly errors: () => string;
  /** The exit code (null when ended by a signal). */
  readonly exited: Promise<number | null>;
}

/**
 * `npm start` as a tester runs it, in its own process group (as a terminal's foreground job is), so
 * that a signal can reach the whole group as Ctrl-C does, and whatever is left can be found.
 */
export const spawnNpmStart = (cwd: string, env: NodeJS.ProcessEnv): StartedService => {
  const child = spawn('npm', ['start'], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => stdout, errors: () => stderr, exited };
};

/** Resolves once the banner is printed; rejects with its error output if it exits first. */
export const bannerOf = async (service: StartedService, timeoutMs = 45_000): Promise<string> => {
  await Promise.race([
    waitFor(() => service.output().includes('Ctrl-C stops'), 'the banner of npm start', timeoutMs),
    service.exited.then((code) => Promise.reject(new Error(`npm start exited with ${code}: ${service.errors()}`))),
  ]);
  return service.output();
};

/** Error output of a run, less the npm client's own notices. */
export const errorLines = (service: StartedService): string[] =>
  service
    .errors()
    .split('\n')
    .filter((line) => line.trim() && !/^npm (warn|error|notice)/.test(line));

/**
 * Where a test's `npm start` keeps its tables when what it tests is a route it serves, not how it
 * starts DynamoDB Local (test/local/npm-start.test.ts and the README walk start their own): the run's
 * DynamoDB Local, under table names of its own. A JVM per such file was the largest CPU cost of the
 * whole run on a busy machine (each start tens of seconds there, beside the other worker's tests).
 * The admin CLI is pointed at the same tables.
 */
export const runsDatabase = (): { DYNAMODB_ENDPOINT: string; CONFIG_TABLE_NAME: string; LEADS_TABLE_NAME: string } => {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run the tests with npm test');
  const prefix = `s${Math.random().toString(36).slice(2, 10)}_`;
  return { DYNAMODB_ENDPOINT: endpoint, CONFIG_TABLE_NAME: `${prefix}config`, LEADS_TABLE_NAME: `${prefix}leads` };
};
