// Bundled in place of an ESM import of node:stream (lib/bundling/node-builtins.ts says why).
module.exports = process.getBuiltinModule('node:stream');
