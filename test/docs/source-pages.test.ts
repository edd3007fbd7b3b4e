import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { GENERATED_END, GENERATED_START, sourcePageFile, sourcePages, strayPages } from '../../scripts/docs/source-pages.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { leadSources } from '../../shared/sources/registry.ts';

/**
 * docs/sources/<name>.md, one page per registry source: its generated part (route, authentication,
 * throttle settings, fields, sample events, admin verbs and routes) is what `npm run docs` writes from
 * the registry now, and the rest is written by hand for the source's senders and account owners.
 */
const relative = (file: string) => path.relative(projectRoot, file);

describe('the per-source pages', () => {
  it.each(leadSources.map((source) => [source.name, source] as const))('%s has its page in docs/sources/', (_name, source) => {
    expect(existsSync(sourcePageFile(source))).toBe(true);
  });

  it('hold the generated parts a fresh build from the registry writes (npm run docs after changing a descriptor, a setting or a field)', async () => {
    const stale = [...(await sourcePages())].filter(([file, page]) => !existsSync(file) || readFileSync(file, 'utf8') !== page).map(([file]) => relative(file));
    expect(stale).toEqual([]);
  });

  it.each(leadSources.map((source) => [source.name, source] as const))('%s: its page is linked from the README, on a line of its own', (_name, source) => {
    const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
    const lines = readme.split('\n').filter((line) => line.includes(`](${relative(sourcePageFile(source))})`));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.match(/\]\(docs\/sources\/[^)]+\.md\)/g)).toHaveLength(1);
  });

  it.each(leadSources.map((source) => [source.name, source] as const))('%s: its generated part prints words, not a declaration object or a missing value', async (_name, source) => {
    const page = (await sourcePages()).get(sourcePageFile(source))!;
    const generated = page.slice(page.indexOf(GENERATED_START), page.indexOf(GENERATED_END));
    expect(generated.match(/\[object \w+\]|\bundefined\b|\bnull\b|\bNaN\b/g) ?? []).toEqual([]);
  });

  it('name no source the registry does not have', () => {
    expect(strayPages()).toEqual([]);
  });

  it.each(leadSources.map((source) => [source.name, source] as const))('%s: its page says by hand what its senders must know, outside the generated part', (_name, source) => {
    const page = readFileSync(sourcePageFile(source), 'utf8');
    const handWritten = page.slice(0, page.indexOf(GENERATED_START)) + page.slice(page.indexOf(GENERATED_END) + GENERATED_END.length);
    expect(handWritten).not.toContain('To be written');
    expect(handWritten.replace(/^#.*$/gm, '').trim().length).toBeGreaterThan(200);
  });
});
