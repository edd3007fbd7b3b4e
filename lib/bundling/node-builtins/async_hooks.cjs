// Bundled in place of an ESM import of node:async_hooks (lib/bundling/node-builtins.ts says why).
module.exports = process.getBuiltinModule('node:async_hooks');
