// Bundled in place of node:async_hooks: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const asyncHooks = process.getBuiltinModule('node:async_hooks');
export default asyncHooks;
export const { AsyncLocalStorage } = asyncHooks;
