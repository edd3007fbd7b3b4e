// Bundled in place of node:https: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const https = process.getBuiltinModule('node:https');
export default https;
export const { Agent, request } = https;
