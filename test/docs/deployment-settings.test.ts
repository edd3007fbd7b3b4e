/**
 * docs/deployment.md's settings table is the operator's list of what `-c name=value` can change: every
 * setting of lib/settings.ts and every other context value the stack reads has its row, and every row
 * is a setting the stack reads, so the table cannot drift from the code again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { defaultSettings } from '../../lib/settings.ts';
import { projectRoot } from '../../scripts/local/environment.ts';

const read = (file: string) => readFileSync(path.join(projectRoot, file), 'utf8');

/** The first column of the table under "### Settings": the names, in backticks. */
const documented = (): string[] => {
  const section = read('docs/deployment.md').split(/^### Settings$/m)[1]!.split(/^#{2,3} /m)[0]!;
  return [...section.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]!);
};

/** Every member of LeadIntakeSettings (optional ones have no default) and every declared source throttle. */
const settings = (): string[] => {
  const source = read('lib/settings.ts');
  const body = source.slice(source.indexOf('export interface LeadIntakeSettings'), source.indexOf('export const defaultSettings'));
  return [...new Set([...body.matchAll(/^\s+readonly (\w+)\??:/gm)].map((match) => match[1]!).concat(Object.keys(defaultSettings)))];
};

/** Context values the stack reads by name outside lib/settings.ts (`tryGetContext('metaGraphApiUrl')`). */
const otherContext = (): string[] => {
  const files = (dir: string): string[] =>
    readdirSync(path.join(projectRoot, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(path.join(dir, entry.name)) : entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : [],
    );
  return [...files('lib'), ...files('bin')].flatMap((file) => [...read(file).matchAll(/tryGetContext\(\s*'(\w+)'\s*\)/g)].map((match) => match[1]!));
};

describe("docs/deployment.md's settings table", () => {
  it('has a row for every setting of lib/settings.ts', () => {
    expect(settings().length).toBeGreaterThan(15);
    expect(settings().filter((name) => !documented().includes(name))).toEqual([]);
  });

  it('has a row for every other context value the stack reads', () => {
    expect(otherContext()).toContain('metaGraphApiUrl');
    expect(otherContext().filter((name) => !documented().includes(name))).toEqual([]);
  });

  it('has no row for a setting the stack does not read, and none twice', () => {
    const known = new Set([...settings(), ...otherContext()]);
    expect(documented().filter((name) => !known.has(name))).toEqual([]);
    expect(documented()).toEqual([...new Set(documented())]);
  });

  it('gives each setting with a default that default', () => {
    const table = read('docs/deployment.md');
    for (const [name, value] of Object.entries(defaultSettings)) {
      const shown = Array.isArray(value) ? value.join(',') : String(value);
      expect(table).toContain(`| \`${name}\` | \`${shown}\` |`);
    }
  });
});
