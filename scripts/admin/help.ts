/**
 * `npm run admin -- --help`: the verbs grouped by what an operator comes to do, each with its summary,
 * wrapped at the terminal's width (80 when the output is not a terminal), as `git` and `gh` print
 * theirs; `<verb> --help` keeps the detail (its usage with every option).
 *
 * Hand-written rather than a CLI library's: commander (help groups since v14, wrapping at the
 * terminal's width) and yargs (`.group()`, `.wrap()`) do this part well, but either would replace the
 * dispatcher and every module's `parseArgs` options (node:util), and the verbs' exit codes and one-line
 * errors the tests hold, for the sake of about fifty lines of layout.
 */
import type { Command } from './command.ts';

/** The width when the output is not a terminal (a pipe, a file, a test). */
export const DEFAULT_HELP_WIDTH = 80;

/** The core modules (scripts/admin/modules.ts) of each group, in the help's order; the registry's sources have a group of their own. */
const coreGroups: readonly { readonly title: string; readonly modules: readonly string[] }[] = [
  { title: 'Accounts and keys', modules: ['configuration', 'keys'] },
  { title: 'Leads and rejections', modules: ['leads', 'rejections', 'sources'] },
];
const personGroup = { title: 'A person’s data (access and erasure)', modules: ['people'] };
const eventsGroup = { title: 'Events to the CRM', modules: ['events'] };
const CONNECTIONS_TITLE = 'Connections, per source';
const OTHER_TITLE = 'More';

/** `text` cut into lines of at most `width` columns at spaces (a word longer than that keeps its own line). */
export const wrapped = (text: string, width: number): string[] => {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
};

export interface HelpModules {
  /** Every module's verbs, by module name. */
  readonly modules: Readonly<Record<string, Readonly<Record<string, Command>>>>;
  /** The modules of the registry's sources (their connections' verbs, Meta's pages), in its order. */
  readonly sourceModules: readonly string[];
}

/** A summary's first sentence: the general help's line of a verb (its help has the rest). */
export const firstSentence = (summary: string): string => summary.split(/(?<=\.)\s+(?=[A-Z-])/)[0]!;

/** The general help: groups of `verb  summary` (its first sentence), the summary wrapped under itself. */
export const generalHelp = ({ modules, sourceModules }: HelpModules, width: number = DEFAULT_HELP_WIDTH): string => {
  const named = new Set([...coreGroups, personGroup, eventsGroup].flatMap((group) => group.modules).concat(sourceModules));
  const groups = [
    ...coreGroups,
    { title: CONNECTIONS_TITLE, modules: sourceModules },
    personGroup,
    eventsGroup,
    // A module no group names yet (a branch's new concern) is listed all the same.
    { title: OTHER_TITLE, modules: Object.keys(modules).filter((name) => !named.has(name)) },
  ]
    .map((group) => ({ title: group.title, verbs: group.modules.flatMap((module) => Object.entries(modules[module] ?? {})) }))
    .filter((group) => group.verbs.length > 0);
  const verbWidth = Math.max(...groups.flatMap((group) => group.verbs.map(([verb]) => verb.length)));
  // The summary's column; on a narrow terminal the summary goes under the verb instead.
  const indent = 2 + verbWidth + 2;
  const summaryWidth = width - indent >= 30 ? width - indent : width - 6;
  const entry = ([verb, command]: [string, Command]) => {
    const lines = wrapped(firstSentence(command.summary), summaryWidth);
    if (width - indent < 30) return [`  ${verb}`, ...lines.map((line) => `      ${line}`)];
    return lines.map((line, i) => `${i === 0 ? `  ${verb.padEnd(verbWidth)}  ` : ' '.repeat(indent)}${line}`);
  };
  return [
    ...wrapped('Usage: npm run admin -- <command> [options] (npm run -s admin -- ... prints only the output)', width),
    '',
    ...groups.flatMap((group) => [`${group.title}:`, ...group.verbs.flatMap(entry), '']),
    ...wrapped('npm run admin -- <command> --help prints a command’s options and all it does.', width),
    '',
    ...wrapped(
      'Database: DYNAMODB_ENDPOINT when set (tables default to those of npm start), else AWS with the default credential chain and the stack outputs in CONFIG_TABLE_NAME and LEADS_TABLE_NAME.',
      width,
    ),
    '',
  ].join('\n');
};
