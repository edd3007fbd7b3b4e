import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { build } from 'esbuild';
import { bundleAliases, esmRequireBanner } from '../../lib/constructs/lead-function.ts';

const root = path.resolve(import.meta.dirname, '../..');
let dir: string;
let bundle: string;

// A bundle built as the stack builds the functions (minified, source map beside it), whose code logs
// an unexpected error the way the envelope does.
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-stack-'));
  bundle = path.join(dir, 'index.mjs');
  await build({
    stdin: {
      contents: [
        "import { describe } from './shared/http/middleware/http-envelope.ts';",
        'function failingStep(): never {',
        "  throw new Error('the database answered something unexpected');",
        '}',
        'try { failingStep(); } catch (error) { console.log(JSON.stringify(describe(error))); }',
      ].join('\n'),
      sourcefile: 'functions/failing/handler.ts',
      loader: 'ts',
      resolveDir: root,
    },
    absWorkingDir: root,
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    banner: { js: esmRequireBanner },
    alias: bundleAliases(),
    logLevel: 'warning',
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const loggedStack = (nodeOptions: string[] = []): string => {
  const run = spawnSync(process.execPath, [...nodeOptions, bundle], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout).stack;
};

describe('Stack traces of the bundled functions in log lines', () => {
  test('name the TypeScript source and line of each frame, without --enable-source-maps', () => {
    const stack = loggedStack();
    expect(stack.split('\n')[1]).toMatch(/[ (/]functions\/failing\/handler\.ts:3:\d+\)?$/);
    expect(stack).not.toContain('index.mjs');
  });

  test('are left as Node wrote them when it maps them itself', () => {
    expect(loggedStack(['--enable-source-maps']).split('\n')[1]).toMatch(/functions\/failing\/handler\.ts:3:\d+\)?$/);
  });

  test('keep the bundle frames when no source map lies beside the bundle', () => {
    rmSync(`${bundle}.map`);
    expect(loggedStack().split('\n')[1]).toMatch(/index\.mjs:\d+:\d+\)?$/);
  });
});
