/**
 * A lead source is one folder (docs/adding-a-lead-source.md): `shared/<folder>/`, whose `source.ts` is
 * its descriptor. Outside the folder, only what the descriptor names (its handler, its worker, its admin
 * CLI verbs), the registry and the admin function's list of source admin modules import from it, so a
 * new source changes no shared module by importing its way in. Meta's asynchronous wiring is the one
 * declared exception (its own construct, `npm start`'s stand-ins for its queue and the Graph API, and
 * the page-token key its cipher shares with the challenge secrets).
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

const filesUnder = (folder: string): string[] =>
  readdirSync(path.join(root, folder)).flatMap((name) => {
    const relative = `${folder}/${name}`;
    if (statSync(path.join(root, relative)).isDirectory()) return filesUnder(relative);
    return /\.(ts|mjs)$/.test(name) ? [relative] : [];
  });

/** Each module's relative imports, static and dynamic, as paths from the repository root. */
const importsOf = (file: string): string[] =>
  [...readFileSync(path.join(root, file), 'utf8').matchAll(/(?:\bfrom|\bimport\(?)\s*'(\.{1,2}\/[^']+)'/g)].map(([, specifier]) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier!)),
  );

const codeFiles = codeFolders.filter((folder) => statSync(path.join(root, folder), { throwIfNoEntry: false })?.isDirectory()).flatMap(filesUnder);

/** The source folders: those of shared/ that hold a descriptor. */
const sourceFolders = readdirSync(path.join(root, 'shared')).filter((name) => statSync(path.join(root, 'shared', name, 'source.ts'), { throwIfNoEntry: false })?.isFile());

const descriptorOf = async (folder: string): Promise<LeadSourceDescriptor> => {
  const module: Record<string, unknown> = await import(pathToFileURL(path.join(root, 'shared', folder, 'source.ts')).href);
  const descriptors = Object.values(module).filter((value): value is LeadSourceDescriptor => leadSources.includes(value as LeadSourceDescriptor));
  expect(descriptors).toHaveLength(1);
  return descriptors[0]!;
};

/** Who may import from a source's folder besides its own modules: what its descriptor names, and the two lists. */
const allowedImporters = (source: LeadSourceDescriptor): Set<string> =>
  new Set(['shared/sources/registry.ts', 'shared/admin-sources.ts', source.entry, ...(source.worker ? [source.worker.entry] : []), ...(source.adminCli ? [source.adminCli.module] : [])]);

/**
 * Meta's asynchronous wiring, declared: its queue, worker, secrets and page-token key are its own
 * construct's, `npm start` runs its queue and a Graph API stand-in in process, the bench drives its
 * worker, and the challenge secrets (and the admin CLI's key verbs) share its page-token key and cipher.
 */
const asynchronousWiring: Readonly<Record<string, readonly string[]>> = {
  meta: [
    'lib/constructs/meta-lead-ads.ts',
    'lib/lead-intake-stack.ts',
    'lib/constructs/challenge-secrets.ts',
    'scripts/admin/keys.ts',
    'scripts/local/meta.ts',
    'scripts/local/graph-stand-in.ts',
    'scripts/local/in-memory-queue.ts',
    'bench/meta-worker.ts',
  ],
};

describe('a lead source is one folder', () => {
  it('has a folder for every source but the four API key endpoints, which the registry declares together', async () => {
    const inFolders = await Promise.all(sourceFolders.map(async (folder) => (await descriptorOf(folder)).name));
    expect(leadSources.filter((source) => !inFolders.includes(source.name)).every((source) => source.authentication === 'api-key')).toBe(true);
  });

  it.each(sourceFolders)('is imported from outside shared/%s/ only by what its descriptor names, the registry and the admin modules list', async (folder) => {
    const source = await descriptorOf(folder);
    const allowed = new Set([...allowedImporters(source), ...(asynchronousWiring[source.name] ?? [])]);
    const own = `shared/${folder}/`;
    const strays = codeFiles.filter((file) => !file.startsWith(own) && !allowed.has(file) && importsOf(file).some((target) => target.startsWith(own)));
    expect(strays).toEqual([]);
  });

  it("keeps each source's functions to their own folder: no handler imports another source's", async () => {
    const crossings: string[] = [];
    for (const folder of sourceFolders) {
      const source = await descriptorOf(folder);
      for (const entry of [source.entry, ...(source.worker ? [source.worker.entry] : [])]) {
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
