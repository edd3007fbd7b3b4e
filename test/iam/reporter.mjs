/**
 * Jest reporter that runs the IAM check (test/iam/check.ts) once every test file has finished, on the
 * AWS calls the handler tests recorded (test/support/aws-calls.ts), and fails the run when it fails.
 * Plain JavaScript, run by Jest itself: the check runs in the project's Node (node_modules/.bin/node,
 * which strips the TypeScript of the stack's code), in a process of its own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';

const testFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? testFiles(path.join(dir, entry.name)) : entry.name.endsWith('.test.ts') ? [path.join(dir, entry.name)] : [],
  );

export default class IamCheckReporter {
  #rootDir;
  #error;

  constructor(globalConfig) {
    this.#rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const dir = process.env.AWS_CALL_RECORDS_DIR;
    if (!dir || !existsSync(dir)) return;
    try {
      // Unused grants mean something only when every test file ran, and passed.
      const allTestsRan = results.numTotalTestSuites === testFiles(path.join(this.#rootDir, 'test')).length && results.numFailedTestSuites === 0 && !results.wasInterrupted;
      // A run without handler tests (the CDK tests alone) has nothing to check.
      if (!allTestsRan && !readdirSync(dir).some((file) => file.endsWith('.jsonl'))) return;
      const projectNode = path.join(this.#rootDir, 'node_modules', '.bin', 'node');
      const check = spawnSync(
        existsSync(projectNode) ? projectNode : process.execPath,
        [path.join(this.#rootDir, 'test', 'iam', 'check.ts'), dir, ...(allTestsRan ? ['--all-tests-ran'] : [])],
        { cwd: this.#rootDir, encoding: 'utf8', timeout: 120_000 },
      );
      process.stderr.write(`\n${check.stdout}${check.stderr}`);
      if (check.status !== 0) this.#error = new Error('the IAM check failed (see above)');
    } finally {
      // KEEP_AWS_CALL_RECORDS=1 keeps them, to run the check again by hand: node test/iam/check.ts <dir> --all-tests-ran
      if (!process.env.KEEP_AWS_CALL_RECORDS) rmSync(dir, { recursive: true, force: true });
      else process.stderr.write(`AWS calls recorded in ${dir}\n`);
    }
  }

  getLastError() {
    return this.#error;
  }
}
