// Bundled in place of an ESM import of node:https (lib/bundling/node-builtins.ts says why).
module.exports = process.getBuiltinModule('node:https');
