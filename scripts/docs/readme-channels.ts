/**
 * The README's opening sentence that names every channel leads come in by, from the registry (each
 * source's `brief`): written by `npm run docs` between its markers, held equal by
 * test/docs/readme-channels.test.ts, so a source added to the registry is named there too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';
import { leadSources } from '../../shared/sources/registry.ts';
import type { PulledSourceDescriptor } from '../../shared/pulled/types.ts';
import { portals } from '../../shared/portals/registry.ts';

export const README_CHANNELS_START = '<!-- the channels, generated from the registry by `npm run docs`: edit a descriptor’s `brief`, not this part -->';
export const README_CHANNELS_END = '<!-- end of the channels -->';

const listed = (phrases: readonly string[]) => (phrases.length < 2 ? phrases.join('') : `${phrases.slice(0, -1).join(', ')} and ${phrases.at(-1)}`);
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The sentence, markers included: the API key senders, those that come in through a webhook of their own, then the portals pulled. */
export const readmeChannels = (sources: readonly LeadSourceDescriptor[] = leadSources, pulled: readonly PulledSourceDescriptor[] = portals.map(({ source }) => source)): string => {
  const keyed = sources.filter((source) => source.authentication === 'api-key').map((source) => source.brief);
  const others = sources.filter((source) => source.authentication !== 'api-key').map((source) => source.brief);
  const sentence = [
    keyed.length > 0 && `${listed(keyed)} POST leads to it, each with its CRM account’s key in \`x-api-key\``,
    others.length > 0 && `${listed(others)} come straight in through their webhooks`,
    pulled.length > 0 && `and ${listed(pulled.map((portal) => portal.brief))} are pulled from the portals every few minutes`,
  ]
    .filter(Boolean)
    .join('; ');
  return [README_CHANNELS_START, `${capitalised(sentence)}.`, README_CHANNELS_END].join('\n');
};

/** The README with its channels written afresh: the text between the markers replaced. */
export const withReadmeChannels = (readme: string, generated: string = readmeChannels()): string => {
  const start = readme.indexOf(README_CHANNELS_START);
  const end = readme.indexOf(README_CHANNELS_END);
  if (start < 0 || end < start) throw new Error(`README.md has no channels markers (${README_CHANNELS_START} ... ${README_CHANNELS_END})`);
  return `${readme.slice(0, start)}${generated}${readme.slice(end + README_CHANNELS_END.length)}`;
};

export const readmePath = (root: string) => path.join(root, 'README.md');

/** Writes the README's channels; true when it changed. */
export const writeReadmeChannels = (root: string): boolean => {
  const before = readFileSync(readmePath(root), 'utf8');
  const after = withReadmeChannels(before);
  if (after !== before) writeFileSync(readmePath(root), after);
  return after !== before;
};
