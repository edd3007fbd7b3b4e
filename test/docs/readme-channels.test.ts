import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../scripts/local/environment.ts';
import { readmeChannels, readmePath, withReadmeChannels } from '../../scripts/docs/readme-channels.ts';
import { leadSources } from '../../shared/sources/registry.ts';
import { portals } from '../../shared/portals/registry.ts';

/** The README's opening names every channel of the registry (issue 44: WhatsApp was missing from it). */
const readme = readFileSync(readmePath(projectRoot), 'utf8');
const opening = readme.slice(0, readme.indexOf('\n## '));

describe('the README’s opening', () => {
  it('holds the channels a fresh build from the registry writes (npm run docs after adding a source)', () => {
    expect(withReadmeChannels(readme)).toBe(readme);
  });

  it.each(leadSources.map((source) => [source.name, source.brief] as const))('names %s (“%s”) before the first heading', (_name, brief) => {
    expect(opening.toLowerCase()).toContain(brief.toLowerCase());
  });

  it.each(portals.map(({ source }) => [source.name, source.brief] as const))('names the portal %s (“%s”) before the first heading', (_name, brief) => {
    expect(opening.toLowerCase()).toContain(brief.toLowerCase());
  });

  it('names a source added to the registry, without a hand edit', () => {
    const added = { ...leadSources.at(-1)!, name: 'pigeon', brief: 'carrier pigeons to the sales office' };
    expect(readmeChannels([...leadSources, added])).toContain('and carrier pigeons to the sales office come straight in through their webhooks;');
  });
});
