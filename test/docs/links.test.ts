import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../scripts/local/environment.ts';

/**
 * The README and docs point inside the repository: a fresh clone has every file they link to, and the
 * sections of the reference they name. Nothing sends a reader to a file the clone does not have
 * (the team's CONTRACT.md, a reference folder).
 */
const markdownIn = (folder: string) => readdirSync(path.join(projectRoot, folder)).filter((name) => name.endsWith('.md')).map((name) => `${folder}/${name}`);
const documents = ['README.md', 'examples/landing-page/README.md', ...markdownIn('docs'), ...markdownIn('docs/sources')];

const read = (file: string) => readFileSync(path.join(projectRoot, file), 'utf8');

/** Markdown links outside code blocks: [text](target). */
const linksOf = (text: string) => [...text.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
const anchorsOf = (text: string) =>
  new Set(
    [...text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
      match[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );

describe('links of the README and docs', () => {
  it.each(documents)('%s links only to files of the repository', (file) => {
    const missing = linksOf(read(file))
      .filter((target) => !/^(https?:|mailto:|#)/.test(target))
      .map((target) => path.join(path.dirname(file), decodeURI(target.split('#')[0]!)))
      .filter((target) => !existsSync(path.join(projectRoot, target)));
    expect(missing).toEqual([]);
  });

  it.each(documents)('%s names sections of the reference, the README and the other docs that exist', (file) => {
    const owned: Record<string, Set<string>> = Object.fromEntries(documents.map((document) => [document, anchorsOf(read(document))]));
    const broken = linksOf(read(file))
      .filter((target) => target.includes('#'))
      .map((target) => {
        const [where, anchor] = target.split('#') as [string, string];
        const resolved = where === '' ? file : path.join(path.dirname(file), where);
        return { target, resolved, anchor };
      })
      .filter(({ resolved }) => resolved in owned)
      .filter(({ resolved, anchor }) => !owned[resolved]!.has(anchor))
      .map(({ target }) => target);
    expect(broken).toEqual([]);
  });

  it.each(documents)('%s never sends the reader to CONTRACT.md or a reference folder outside the repository', (file) => {
    expect(read(file)).not.toMatch(/CONTRACT\.md|reference folder/);
  });

  it('the reference has the sections the code and docs cite by number, calls to project numbers (section 13) among them', () => {
    const reference = read('docs/reference.md');
    for (const section of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]) expect(reference).toMatch(new RegExp(`^## ${section}\\. `, 'm'));
    expect(reference).toMatch(/^## 13\. Calls to a project's number, straight in$/m);
    expect(reference).toMatch(/GET` or `POST \{base_url\}\/api\/call-lead-webhook\/\{provider\}`/);
  });
});
