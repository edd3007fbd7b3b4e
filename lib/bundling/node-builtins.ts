/**
 * Node built-ins reach the bundles as CommonJS, not through ESM imports.
 *
 * An ESM `import … from 'node:http'` makes Node build the built-in's ESM facade, which reads every
 * export once, lazy getters included: `http.WebSocket` loads undici (about 17 ms), `crypto.subtle`
 * Web Crypto, `process.stdin` a stream. The bundles import these built-ins from ESM sources (the
 * SDK's, ours), so a cold start paid for all of it (docs/performance.md, "Where a cold start goes").
 * Aliased to a one-line module that takes the built-in from `process.getBuiltinModule`, each import
 * becomes esbuild's CommonJS interop, whose named imports are read only when used.
 *
 * The bundling test fails when a bundle still imports a built-in as ESM: add its name here and its
 * file to node-builtins/ (`module.exports = process.getBuiltinModule('node:<name>')`).
 */
export const BUNDLED_NODE_BUILTINS = ['async_hooks', 'crypto', 'fs', 'fs/promises', 'http', 'https', 'net', 'os', 'path', 'process', 'stream', 'timers', 'zlib'] as const;

/** esbuild aliases, relative to the project root: `node:crypto` and `crypto` to node-builtins/crypto.cjs. */
export const nodeBuiltinAliases = (): Record<string, string> =>
  Object.fromEntries(
    BUNDLED_NODE_BUILTINS.flatMap((name) => {
      const file = `./lib/bundling/node-builtins/${name.replace('/', '-')}.cjs`;
      return [
        [`node:${name}`, file],
        [name, file],
      ];
    }),
  );
