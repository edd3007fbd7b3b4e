/**
 * Stack traces of the bundled functions, mapped to the TypeScript sources only when one is logged.
 *
 * `--enable-source-maps` maps every stack, but makes Node read and parse the bundle's source map and
 * measure every line of the bundle when it loads it: about 10 ms of each cold start
 * (docs/decisions/0007), for stacks the service logs only on an unexpected error. So the functions run
 * without it, and the few stacks that reach a log line are mapped here, from the `.map` file beside
 * the bundle, read on the first such error of the container.
 */
import type { SourceMap } from 'node:module';

const maps = new Map<string, SourceMap | undefined>();

const sourceMapOf = (file: string): SourceMap | undefined => {
  if (!maps.has(file)) {
    let map: SourceMap | undefined;
    try {
      const { readFileSync } = process.getBuiltinModule('node:fs');
      const { SourceMap } = process.getBuiltinModule('node:module');
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = undefined; // no map beside it (not a bundle, or not deployed with one): the stack stays as it is
    }
    maps.set(file, map);
  }
  return maps.get(file);
};

const fileOf = (location: string): string => (location.startsWith('file://') ? process.getBuiltinModule('node:url').fileURLToPath(location) : location);

/** A bundle's frame: `file:///var/task/index.mjs:15:2345` or `/var/task/index.mjs:15:2345`. */
const BUNDLE_FRAME = /((?:file:\/\/)?\/[^\s()]+\.[cm]?js):(\d+):(\d+)/g;

/** `../../shared/http/lead-handler.ts` → `shared/http/lead-handler.ts`: where the source sits in the repository. */
const repositoryPath = (source: string): string => source.replace(/^(?:[a-z]+:\/\/)?(?:\.\.?\/)+/, '');

/** The stack with each bundle frame replaced by the source file, line and column it was built from. */
export const sourceMappedStack = (stack: string): string => {
  if (process.sourceMapsEnabled) return stack; // Node already mapped it
  return stack.replace(BUNDLE_FRAME, (frame, location: string, line: string, column: string) => {
    const origin = sourceMapOf(fileOf(location))?.findOrigin(Number(line), Number(column));
    return origin && 'fileName' in origin ? `${repositoryPath(origin.fileName)}:${origin.lineNumber}:${origin.columnNumber}` : frame;
  });
};
