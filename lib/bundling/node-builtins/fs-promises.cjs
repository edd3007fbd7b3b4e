// Bundled in place of an ESM import of node:fs/promises (lib/bundling/node-builtins.ts says why).
module.exports = process.getBuiltinModule('node:fs/promises');
