// Bundled in place of node:http: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const http = process.getBuiltinModule('node:http');
export default http;
export const { Agent, STATUS_CODES, request } = http;
