// Bundled in place of node:timers: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const timers = process.getBuiltinModule('node:timers');
export default timers;
export const { setTimeout } = timers;
