// Bundled in place of node:net: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const net = process.getBuiltinModule('node:net');
export default net;
export const { isIP } = net;
