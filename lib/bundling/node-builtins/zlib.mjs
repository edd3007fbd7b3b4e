// Bundled in place of node:zlib: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const zlib = process.getBuiltinModule('node:zlib');
export default zlib;
