// Bundled in place of node:path: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const path = process.getBuiltinModule('node:path');
export default path;
export const { dirname, join, sep } = path;
