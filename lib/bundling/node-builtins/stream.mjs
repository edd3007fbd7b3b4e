// Bundled in place of node:stream: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const stream = process.getBuiltinModule('node:stream');
export default stream;
export const { PassThrough, Readable, Writable } = stream;
