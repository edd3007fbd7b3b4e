// Bundled in place of node:fs/promises: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const fsPromises = process.getBuiltinModule('node:fs/promises');
export default fsPromises;
export const { readFile } = fsPromises;
