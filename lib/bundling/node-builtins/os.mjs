// Bundled in place of node:os: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const os = process.getBuiltinModule('node:os');
export default os;
export const { homedir, platform, release } = os;
