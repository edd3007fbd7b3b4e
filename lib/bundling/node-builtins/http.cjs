// Bundled in place of an ESM import of node:http (lib/bundling/node-builtins.ts says why).
module.exports = process.getBuiltinModule('node:http');
