import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import { build } from 'esbuild';
import { BUNDLED_NODE_BUILTINS, nodeBuiltinAliases } from '../../lib/bundling/node-builtins.ts';
import { esmRequireBanner } from '../../lib/constructs/lead-function.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('Node built-ins in the bundles', () => {
  test('each aliased built-in is a module that hands over the built-in itself', () => {
    for (const name of BUNDLED_NODE_BUILTINS) {
      const file = nodeBuiltinAliases()[`node:${name}`]!;
      expect(nodeBuiltinAliases()[name]).toBe(file);
      expect(readFileSync(path.join(root, file), 'utf8')).toContain(`module.exports = process.getBuiltinModule('node:${name}');`);
    }
  });

  test('a bundle reads named, default and namespace imports of a built-in without an ESM import', async () => {
    const result = await build({
      stdin: {
        contents: [
          "import { createHash } from 'node:crypto';",
          "import path from 'path';",
          "import * as fsp from 'node:fs/promises';",
          "export const digest = createHash('sha256').update('lead').digest('hex');",
          "export const joined = path.join('a', 'b');",
          'export const readFile = fsp.readFile;',
          "export const http = () => import('node:http');",
        ].join('\n'),
        resolveDir: root,
      },
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'esm',
      banner: { js: esmRequireBanner },
      alias: nodeBuiltinAliases(),
      write: false,
    });
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/\bfrom\s*["'](node:)?[a-z_/]+["']|\bimport\s*\(/);
    // Run as Lambda would: a fresh Node process importing the bundle as an ES module.
    const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-builtins-'));
    try {
      const file = path.join(dir, 'index.mjs');
      writeFileSync(file, code);
      const check = `const m = await import(${JSON.stringify(pathToFileURL(file).href)});
        console.log(JSON.stringify({ digest: m.digest, joined: m.joined, readFile: m.readFile === (await import('node:fs/promises')).readFile, request: (await m.http()).request === (await import('node:http')).request }));`;
      const run = spawnSync(process.execPath, ['--input-type=module', '--eval', check], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({ digest: createHash('sha256').update('lead').digest('hex'), joined: path.join('a', 'b'), readFile: true, request: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
