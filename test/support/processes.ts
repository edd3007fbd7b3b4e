/** Child processes of the end-to-end tests: waiting on them, and proving none is left behind. */
import { execFileSync } from 'node:child_process';

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
