/**
 * Node built-ins reach the bundles through small modules of our own, not through Node's ESM facades.
 *
 * An ESM `import … from 'node:http'` makes Node build the built-in's ESM facade, which reads every
 * export once, lazy getters included: `http.WebSocket` loads undici (about 17 ms), `crypto.subtle`
 * Web Crypto, `process.stdin` a stream. The bundles import these built-ins from ESM sources (the
 * SDK's, ours), so a cold start paid for all of it (docs/performance.md, "Where a cold start goes").
 * Each is aliased to node-builtins/<name>.mjs, which takes the built-in from `process.getBuiltinModule`
 * and exports it as the default and by the names the bundles import, read once: no lazy getter that
 * loads what the bundles would not load anyway (test/unit/node-builtins.test.ts names the two getters
 * it allows). esbuild binds those names directly. (They were one-line CommonJS modules until issue 36:
 * esbuild's interop then copied every property of the built-in into a fresh object at each of the 30
 * or so imports, `__toESM`, about 2 ms of a cold start.)
 *
 * fs keeps a one-line CommonJS module (`module.exports = process.getBuiltinModule('node:fs')`): the name
 * the SDK imports from it, `ReadStream`, is a getter that loads Node's file streams, which the interop
 * reads only when a body is a stream (never, for DynamoDB's JSON).
 *
 * A static import of a name that is not exported fails the build (esbuild: "No matching export"): add
 * the name to the built-in's file. Names read from a dynamic `import('node:<name>')` are not checked by
 * esbuild; the test of these files (test/unit/node-builtins.test.ts) lists them. The bundling test fails
 * when a bundle still imports a built-in as ESM: add its name here and its file to node-builtins/.
 */
/** Built-ins whose alias stays CommonJS: the names imported from them are getters that load more (above). */
export const COMMONJS_NODE_BUILTINS: readonly string[] = ['fs'];

export const BUNDLED_NODE_BUILTINS = ['async_hooks', 'crypto', 'fs', 'fs/promises', 'http', 'https', 'net', 'os', 'path', 'process', 'stream', 'timers', 'zlib'] as const;

/** esbuild aliases, relative to the project root: `node:crypto` and `crypto` to node-builtins/crypto.mjs. */
export const nodeBuiltinAliases = (): Record<string, string> =>
  Object.fromEntries(
    BUNDLED_NODE_BUILTINS.flatMap((name) => {
      const file = `./lib/bundling/node-builtins/${name.replace('/', '-')}.${COMMONJS_NODE_BUILTINS.includes(name) ? 'cjs' : 'mjs'}`;
      return [
        [`node:${name}`, file],
        [name, file],
      ];
    }),
  );
