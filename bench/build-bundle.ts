/**
 * Builds one function's bundle as the stack deploys it, from any checkout of this repository, so that
 * section 5 can time it beside this code's (BENCH_COLD_COMPARE):
 *   git worktree add /tmp/main main && (cd /tmp/main && npm ci)
 *   node bench/build-bundle.ts /tmp/main website /tmp/main-website/index.mjs
 *   BENCH_SECTIONS=coldstart BENCH_COLD_COMPARE=main=/tmp/main-website/index.mjs npm run bench -- --markdown
 * The checkout's own esbuild options are used (its bench/cold-start.ts), so its aliases come with it.
 */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const [checkout, functionName, outfile] = process.argv.slice(2);
if (!checkout || !functionName || !outfile) {
  process.stderr.write('usage: node bench/build-bundle.ts <checkout> <function folder, e.g. website> <outfile.mjs>\n');
  process.exit(2);
}
const root = path.resolve(checkout);
const { lambdaBuildOptions } = await import(pathToFileURL(path.join(root, 'bench', 'cold-start.ts')).href);
const { build } = await import(pathToFileURL(path.join(root, 'node_modules', 'esbuild', 'lib', 'main.js')).href);
const options = await lambdaBuildOptions();
await build({ ...options, absWorkingDir: root, entryPoints: [path.join(root, 'functions', functionName, 'handler.ts')], outfile: path.resolve(outfile) });
process.stdout.write(`${path.resolve(outfile)}\n`);
