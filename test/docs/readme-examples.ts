/** The README's shell examples, and those of the pages it sends a newcomer to, as the README walk reads them (its header says how). */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../../scripts/local/environment.ts';

export interface Example {
  /** The command as written (continuation lines joined). */
  readonly command: string;
  /** Line of its first line in its file. */
  readonly line: number;
  /** The documented answer: texts its output holds, in order, and its exit code. */
  readonly answers: string[];
  readonly exitCode: number;
}

export interface Block {
  /** The file it is in, relative to the repository root (README.md, docs/running-locally.md). */
  readonly file: string;
  readonly line: number;
  readonly examples: Example[];
}

/** The ```bash blocks of a Markdown text, each with its commands and their documented answers. */
export const examplesOf = (markdown: string, file = 'README.md'): Block[] => {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(\w*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const [, indent, language] = fence;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    if (language === 'bash' || language === 'sh') {
      const examples: { command: string; line: number; answers: string[]; exitCode: number }[] = [];
      let last: (typeof examples)[number] | undefined;
      for (let j = i + 1; j < end; j++) {
        const text = lines[j]!.slice(indent!.length);
        if (text.trim() === '') {
          last = undefined;
          continue;
        }
        if (text.trimStart().startsWith('#')) {
          if (!last) continue; // a note before any command: for the reader
          const answer = text.trimStart().replace(/^#\s?/, '').replace(/\s{2,}\(.*\)\s*$/, '');
          const exit = /^exit (\d+)(?::\s*(.*))?$/.exec(answer);
          if (exit) {
            last.exitCode = Number(exit[1]);
            if (exit[2]) last.answers.push(exit[2]);
          } else last.answers.push(answer);
          continue;
        }
        let command = text;
        const start = j;
        while (command.endsWith('\\') && j + 1 < end) command = `${command}\n${lines[++j]!.slice(indent!.length)}`;
        last = { command, line: start + 1, answers: [], exitCode: 0 };
        examples.push(last);
      }
      blocks.push({ file, line: i + 1, examples });
    }
    i = end;
  }
  return blocks;
};

/**
 * A newcomer's path: the README, then the pages it sends them to whose examples run on `npm start`, in
 * the order a newcomer follows them (one page's examples use what an earlier one made: the admin CLI's
 * `DYNAMODB_ENDPOINT`, a call number removed before its refused call).
 */
export const newcomerPath = ['README.md', 'docs/sending-leads.md', 'docs/running-locally.md', 'docs/sources/meta.md', 'docs/sources/google_ads.md', 'docs/sources/call.md', 'docs/sources/whatsapp.md'] as const;

/** The shell examples of the newcomer's path, file after file. */
export const newcomerBlocks = (): Block[] => newcomerPath.flatMap((file) => examplesOf(readFileSync(path.join(projectRoot, file), 'utf8'), file));
