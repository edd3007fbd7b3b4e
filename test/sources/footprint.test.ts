/**
 * A lead source is one folder (docs/adding-a-lead-source.md): `shared/<folder>/`, whose `source.ts` is its
 * descriptor. Two rules, over every source of the registry (a new source is covered with no edit here):
 *
 * Imports. Outside its folder, only what its descriptor names (its handler, its worker, its admin CLI
 * verbs, its worker's wiring: `worker.wiring`), the registry and the admin function's list of source
 * admin modules (shared/admin-sources.ts) import from it.
 *
 * Names. A source's names are its `name`, `invokeName`, `leadSource` where no other source has it (Meta's
 * `social` is the social endpoint's too), its connection kind, and its folder. Outside its folder they
 * appear only in: the registry's line of it (shared/sources/registry.ts: the import of its descriptor and
 * the list of descriptors; shared/admin-sources.ts's line is the admin function's registry line), its
 * handler file(s) (`entry`, `worker.entry`), what its worker really needs and its descriptor declares
 * (`worker.wiring`: its construct, the stack's line building it, its benchmark), events/, test/, README.md
 * and docs/sources/<name>.md (a page
 * whose file name is one of its names). Another source's folder is "outside" too.
 *
 * What "appears" means:
 * - Code (.ts, .mjs of shared/, lib/, scripts/, functions/, bin/, bench/), comments aside: an identifier
 *   of two words or more (split at case changes and `_`) holding the name's words in a row (`callsSource`,
 *   `GOOGLE_FORM_CONNECTION`); a string literal or template text holding a compound token (one joined by
 *   `_ - / . :` or case) with the name's words in a row (`'call_id'`, `'/api/meta-leadgen-webhook'`,
 *   `'../calls/admin.ts'`), or that is the name alone (`'meta'`). A one-word identifier or a word of prose
 *   in a string is English, not a name: `import.meta`, `fn.call`, 'nothing calls it', 'Meta leadgen webhook',
 *   "Meta's page" (a possessive is not a joined token).
 * - JSON (seed/, docs/*.json): its strings, by the same rule as string literals.
 * - Markdown (README.md, docs/): code spans and fenced blocks, by the same rule (prose says "Meta" and
 *   "calls" as English; what a reader types or reads as code is the name).
 * Names are compared by their words, lower case: `google_ads`, `google-ads` and `googleAds` are one name.
 * Words of the language or of AWS that hold a one-word name are not names (`notNames`: `import.meta`,
 * an AWS JSON API call). docs/openapi.json is generated from the sources' own OpenAPI modules (`npm run
 * openapi`), as docs/sources/ pages will be: what it says of a source is its folder's.
 * The folder is a name only as a path segment (`shared/google/`, `'../google/x.ts'`): Google is also
 * reCAPTCHA's host.
 *
 * The four API key endpoints (website, portala, portalb, social) are sources too, declared together in
 * shared/sources/lead-endpoints.ts: their names are CONTRACT.md section 1's endpoint words, which every
 * key (`endpoints`), the key scopes, the lead records (`source`) and the website's sub source kind use
 * as contract words of the shared lead path. They have no folder, so the name rule does not apply to them;
 * what is theirs alone (their fields, routes and answers) is their descriptors'.
 *
 * Places that must still name a source are declared in its descriptor (`namedOutside`), each with why;
 * a declared place that no longer names its source fails, so the lists only shrink.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';
import { leadSources } from '../../shared/sources/registry.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The code a deployment or a tool runs (tests may import a source's modules as they like). */
const codeFolders = ['shared', 'lib', 'scripts', 'functions', 'bin', 'bench'];
const isFolder = (folder: string) => statSync(path.join(root, folder), { throwIfNoEntry: false })?.isDirectory() === true;

const filesUnder = (folder: string, pattern: RegExp): string[] =>
  readdirSync(path.join(root, folder)).flatMap((name) => {
    const relative = `${folder}/${name}`;
    if (statSync(path.join(root, relative)).isDirectory()) return filesUnder(relative, pattern);
    return pattern.test(name) ? [relative] : [];
  });

/** Each module's relative imports, static and dynamic, as paths from the repository root. */
const importsOf = (file: string): string[] =>
  [...readFileSync(path.join(root, file), 'utf8').matchAll(/(?:\bfrom|\bimport\(?)\s*'(\.{1,2}\/[^']+)'/g)].map(([, specifier]) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier!)),
  );

const codeFiles = codeFolders.filter(isFolder).flatMap((folder) => filesUnder(folder, /\.(ts|mjs)$/));
/** Everything a reader or a deployment reads besides the tests and the sample events. */
const namedFiles = [...codeFiles, ...['seed', 'docs'].filter(isFolder).flatMap((folder) => filesUnder(folder, /\.(json|md)$/)), 'README.md'];

/** The source folders: those of shared/ that hold a descriptor. */
const sourceFolders = readdirSync(path.join(root, 'shared')).filter((name) => statSync(path.join(root, 'shared', name, 'source.ts'), { throwIfNoEntry: false })?.isFile());

const descriptorOf = async (folder: string): Promise<LeadSourceDescriptor> => {
  const module: Record<string, unknown> = await import(pathToFileURL(path.join(root, 'shared', folder, 'source.ts')).href);
  const descriptors = Object.values(module).filter((value): value is LeadSourceDescriptor => leadSources.includes(value as LeadSourceDescriptor));
  expect(descriptors).toHaveLength(1);
  return descriptors[0]!;
};

/** Its handler file(s): the only code outside its folder that names it. */
const handlersOf = (source: LeadSourceDescriptor): string[] => [source.entry, ...(source.worker ? [source.worker.entry] : [])];

/** Who may import from a source's folder besides its own modules: what its descriptor names, and the two lists. */
const allowedImporters = (source: LeadSourceDescriptor): Set<string> =>
  new Set([
    'shared/sources/registry.ts',
    'shared/admin-sources.ts',
    ...handlersOf(source),
    ...(source.worker?.wiring ?? []),
    ...(source.adminCli ? [source.adminCli.module] : []),
  ]);

// ---- Names ------------------------------------------------------------------------------------------------

/** A name's or a token's words: split at every character but a letter or digit, and at case changes; lower case. */
const wordsOf = (text: string): string[] =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

const holds = (words: readonly string[], name: readonly string[]) => words.some((_, i) => name.every((word, j) => words[i + j] === word));

/** The names of a source that may appear nowhere else: see the header. */
const namesOf = (source: LeadSourceDescriptor): string[][] => {
  const leadSourceIsItsOwn = leadSources.filter((other) => other.leadSource === source.leadSource).length === 1;
  const names = [source.name, source.invokeName, ...(leadSourceIsItsOwn ? [source.leadSource] : []), ...(source.connection ? [source.connection.kind] : [])];
  return [...new Map(names.map((name) => [wordsOf(name).join(' '), wordsOf(name)])).values()];
};

/** Comments out, strings and template text kept (a `//` inside a string is not a comment). */
const tokensOfCode = (source: string): { identifiers: string[]; literals: string[] } => {
  const identifiers: string[] = [];
  const literals: string[] = [];
  const pattern = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`|[A-Za-z_$][\w$]*/g;
  for (const [token] of source.matchAll(pattern)) {
    if (token.startsWith('//') || token.startsWith('/*')) continue;
    if (/^['"`]/.test(token)) literals.push(token.slice(1, -1));
    else identifiers.push(token);
  }
  return { identifiers, literals };
};

const tokensOf = (file: string): { identifiers: string[]; literals: string[] } => {
  const text = readFileSync(path.join(root, file), 'utf8');
  if (file.endsWith('.json')) return { identifiers: [], literals: [...text.matchAll(/"((?:[^"\\\n]|\\.)*)"/g)].map(([, value]) => value!) };
  if (file.endsWith('.md')) return { identifiers: [], literals: [...text.matchAll(/```[^\n]*\n([\s\S]*?)```|`([^`\n]+)`/g)].map(([, block, span]) => (block ?? span)!) };
  return tokensOfCode(text);
};

/** Whether a file names a source (see the header), and where: the lines that do, for the failure message. */
const appearances = (file: string, names: readonly (readonly string[])[], folder: string): string[] => namesIn(tokensOf(file), names, folder);

const lineNames = (line: string, names: readonly (readonly string[])[], folder: string): boolean => namesIn(tokensOfCode(line), names, folder).length > 0;

/**
 * The files the descriptors declare as naming them (`namedOutside`): a path there is the declaration's
 * reference to a file, held to naming its source, not a name of the source whose folder holds the file.
 */
const declaredPlaces: ReadonlySet<string> = new Set(leadSources.flatMap((source) => Object.keys(source.namedOutside ?? {})));

/** Words of JavaScript and of AWS that hold a source's one-word name, and name no source. */
const notNames = { identifiers: new Set(['awsJsonCall', 'AwsJsonCall']), inLiterals: /\bimport\.meta\b/g };

const namesIn = ({ identifiers, literals }: { identifiers: string[]; literals: string[] }, names: readonly (readonly string[])[], folder: string): string[] => {
  const found = new Set<string>();
  for (const identifier of identifiers.filter((identifier) => !notNames.identifiers.has(identifier))) {
    const words = wordsOf(identifier);
    if (words.length > 1 && names.some((name) => holds(words, name))) found.add(identifier);
  }
  for (const literal of literals.filter((text) => !declaredPlaces.has(text)).map((text) => text.replace(notNames.inLiterals, ''))) {
    const whole = literal.trim();
    if (names.some((name) => wordsOf(whole).join(' ') === name.join(' ') && !/\s/.test(whole))) found.add(whole);
    // A possessive is prose, not a joined token: "Meta's page" says Meta as English.
    for (const token of literal.split(/\s+/).map((word) => word.replace(/['’]s\b/g, ''))) {
      const words = wordsOf(token);
      if (words.length > 1 && names.some((name) => holds(words, name))) found.add(token);
      if (new RegExp(`(^|[/'"\`])${folder}/`).test(token)) found.add(token);
    }
  }
  return [...found];
};

/** The registry's line of a source: its descriptor's import and the list of descriptors. Any other line of the registry names no source. */
const registryLines = (folder: string, names: readonly (readonly string[])[]): string[] =>
  readFileSync(path.join(root, 'shared/sources/registry.ts'), 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .filter((line) => lineNames(line, names, folder))
    .filter((line) => !new RegExp(`^import \\{ \\w+ \\} from '\\.\\./${folder}/source\\.ts';$`).test(line) && !/^const declaredSources = \[/.test(line));


/** Where a source's names may appear outside its folder (see the header). */
const mayName = (source: LeadSourceDescriptor, names: readonly (readonly string[])[], file: string): boolean =>
  file === 'shared/sources/registry.ts' ||
  file === 'shared/admin-sources.ts' ||
  handlersOf(source).includes(file) ||
  (source.worker?.wiring ?? []).includes(file) ||
  file === 'README.md' ||
  file === 'docs/openapi.json' ||
  (file.startsWith('docs/sources/') && names.some((name) => wordsOf(path.basename(file, '.md')).join(' ') === name.join(' ')));

describe('a lead source is one folder', () => {
  it('has a folder for every source but the four API key endpoints, which the registry declares together', async () => {
    const inFolders = await Promise.all(sourceFolders.map(async (folder) => (await descriptorOf(folder)).name));
    expect(leadSources.filter((source) => !inFolders.includes(source.name)).every((source) => source.authentication === 'api-key')).toBe(true);
  });

  it.each(sourceFolders)('is imported from outside shared/%s/ only by what its descriptor names, the registry and the admin modules list', async (folder) => {
    const source = await descriptorOf(folder);
    const allowed = allowedImporters(source);
    const own = `shared/${folder}/`;
    const strays = codeFiles.filter((file) => !file.startsWith(own) && !allowed.has(file) && importsOf(file).some((target) => target.startsWith(own)));
    expect(strays).toEqual([]);
  });

  it.each(sourceFolders)('is named outside shared/%s/ only by its registry line, its handlers, its events, its tests, the README and its docs/sources/ page', async (folder) => {
    const source = await descriptorOf(folder);
    const names = namesOf(source);
    const own = `shared/${folder}/`;
    const waiting = source.namedOutside ?? {};
    const named = Object.fromEntries(
      namedFiles
        .filter((file) => !file.startsWith(own) && !mayName(source, names, file))
        .map((file) => [file, appearances(file, names, folder)] as const)
        .filter(([, found]) => found.length > 0),
    );
    expect(Object.keys(named).filter((file) => !(file in waiting)).map((file) => `${file}: ${named[file]!.join(', ')}`)).toEqual([]);
    // A declared place that no longer names it: take it off its descriptor's list.
    expect(Object.keys(waiting).filter((file) => !(file in named))).toEqual([]);
    expect(registryLines(folder, names)).toEqual([]);
  });

  it("keeps each source's functions to their own folder: no handler imports another source's", async () => {
    const crossings: string[] = [];
    for (const folder of sourceFolders) {
      const source = await descriptorOf(folder);
      for (const entry of handlersOf(source)) {
        const foreign = importsOf(entry).filter((target) => target.startsWith('shared/') && sourceFolders.some((other) => other !== folder && target.startsWith(`shared/${other}/`)));
        crossings.push(...foreign.map((target) => `${entry} -> ${target}`));
      }
    }
    expect(crossings).toEqual([]);
  });

  it('names the registry line, not a copy of it: the registry imports each folder by its descriptor alone', () => {
    const registryImports = importsOf('shared/sources/registry.ts').filter((target) => sourceFolders.some((folder) => target.startsWith(`shared/${folder}/`)));
    expect(registryImports.sort()).toEqual(sourceFolders.map((folder) => `shared/${folder}/source.ts`).sort());
  });
});
