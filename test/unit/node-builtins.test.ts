import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import { build } from 'esbuild';
import { BUNDLED_NODE_BUILTINS, COMMONJS_NODE_BUILTINS, nodeBuiltinAliases } from '../../lib/bundling/node-builtins.ts';
import { esmRequireBanner } from '../../lib/constructs/lead-function.ts';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Names the bundles read off a dynamic `import('node:<name>')`, which esbuild does not check against
 * the alias's exports (a static import of a missing name fails the build instead): the SDK's HTTP
 * handler and its instance-metadata client import node:http lazily, and @smithy/core async_hooks.
 */
const NAMES_READ_FROM_DYNAMIC_IMPORTS: Partial<Record<(typeof BUNDLED_NODE_BUILTINS)[number], readonly string[]>> = {
  http: ['Agent', 'request'],
  async_hooks: ['AsyncLocalStorage'],
};

/**
 * Getters an alias may read at import, each loading nothing the bundles avoid: async_hooks'
 * AsyncLocalStorage (shared/deadline.ts makes one at import anyway), crypto's getRandomValues (returns
 * a function that loads Web Crypto only when called; @smithy/core reads it at import anyway).
 */
const GETTERS_READ_AT_IMPORT: Partial<Record<(typeof BUNDLED_NODE_BUILTINS)[number], readonly string[]>> = {
  async_hooks: ['AsyncLocalStorage'],
  crypto: ['getRandomValues'],
};

describe('Node built-ins in the bundles', () => {
  test('each aliased built-in is a module that hands over the built-in itself, and its own names', async () => {
    for (const name of BUNDLED_NODE_BUILTINS) {
      const file = nodeBuiltinAliases()[`node:${name}`]!;
      expect(nodeBuiltinAliases()[name]).toBe(file);
      const builtin = process.getBuiltinModule(`node:${name}`) as Record<string, unknown>;
      if (COMMONJS_NODE_BUILTINS.includes(name)) {
        expect(readFileSync(path.join(root, file), 'utf8')).toContain(`module.exports = process.getBuiltinModule('node:${name}');`);
        continue;
      }
      const { default: whole, ...named } = (await import(pathToFileURL(path.join(root, file)).href)) as Record<string, unknown>;
      expect(whole).toBe(builtin);
      for (const [export_, value] of Object.entries(named)) {
        // A lazy getter read at import would load what the alias exists to avoid (undici, Web Crypto).
        const getter = typeof Object.getOwnPropertyDescriptor(builtin, export_)?.get;
        if (!GETTERS_READ_AT_IMPORT[name]?.includes(export_)) expect({ [export_]: getter }).toEqual({ [export_]: 'undefined' });
        expect({ [export_]: value }).toEqual({ [export_]: builtin[export_] });
        expect(value).toBeDefined();
      }
      for (const needed of NAMES_READ_FROM_DYNAMIC_IMPORTS[name] ?? []) expect(Object.keys(named)).toContain(needed);
    }
  });

  test('a bundle reads named, default and namespace imports of a built-in without an ESM import or interop', async () => {
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
    // Nor esbuild's CommonJS interop, which copied each built-in's properties at every import.
    expect(code).not.toContain('__toESM');
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
