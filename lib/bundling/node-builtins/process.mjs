// Bundled in place of node:process: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const processModule = process.getBuiltinModule('node:process');
export default processModule;
export const { env, versions } = processModule;
