/**
 * The README walked top to bottom, as a reader follows it: every shell example of its ```bash blocks
 * runs in the order written, in one shell (what one example exports, the next one has), against one
 * `npm start` on free ports and a fresh data folder, and each gives the answer the README states.
 *
 * What the README states, in its code blocks:
 * - A `# ...` line right under a command is that command's answer: the command's output (standard output,
 *   then standard error, white space aside) holds that text, with `…` standing for anything. An aside after two spaces, `  (...)`, is for the reader only.
 * - `# exit N` (or `# exit N: text`) under a command: it exits with N (and prints the text). Without it, 0.
 * Comments at the end of a command's line are for the reader only.
 *
 * The walk's own commands are not run again (`npm ci` was run, `npm test` is running, `npm start` was
 * started for the walk). Only blocks that need AWS (a deployed stack's outputs, the AWS CLI, SAM) are
 * skipped, and the counts of what ran are checked, so the walk cannot silently run nothing.
 * The README's local ports (3000, 8000) are the walk's free ports. README_WALK_TIMES=1 prints each
 * command's time (most of the walk is the admin CLI's and invoke's process starts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { bannerOf, killGroup, spawnNpmStart, type StartedService } from '../support/processes.ts';

interface Example {
  /** The command as written (continuation lines joined). */
  readonly command: string;
  /** README line of its first line. */
  readonly line: number;
  /** The documented answer: texts its output holds, in order, and its exit code. */
  readonly answers: string[];
  readonly exitCode: number;
}

interface Block {
  readonly line: number;
  readonly examples: Example[];
}

/** The ```bash blocks of a Markdown text, each with its commands and their documented answers. */
const examplesOf = (markdown: string): Block[] => {
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
      blocks.push({ line: i + 1, examples });
    }
    i = end;
  }
  return blocks;
};

/** A block that needs AWS: a deployed stack's outputs, the AWS CLI, SAM, a deploy or a smoke test of one. */
const needsAws = (block: Block) => block.examples.some(({ command }) => /(^|[\s;(|])(aws|sam|cdk) |\$\(out |\bnpm run (synth|deploy|smoke)\b/.test(command));

/** The commands of the walk itself: run before the walk (npm ci, npm start) or running it (npm test). */
const walksOwn = (command: string) => {
  const bare = command.replace(/\s+#.*$/, '').trim();
  return /^npm (ci|start|test|run soak)\b/.test(bare) && !/[|;]/.test(bare);
};

/**
 * `…` stands for anything, and white space is left out of both (a table's column widths, JSON printed
 * pretty or compact). True when the pieces are found in order.
 */
const holds = (output: string, answer: string): boolean => {
  const text = output.replace(/\s+/g, '');
  let from = 0;
  for (const piece of answer.replace(/\s+/g, '').split('…')) {
    const at = text.indexOf(piece, from);
    if (at < 0) return false;
    from = at + piece.length;
  }
  return true;
};

/** One bash, as a reader's terminal: each command runs in it, in order, with what the earlier ones set. */
class Terminal {
  readonly #shell: ChildProcessWithoutNullStreams;
  #stdout = '';
  #stderr = '';
  readonly #mark = `__walk_${randomUUID().replaceAll('-', '')}__`;

  constructor(env: NodeJS.ProcessEnv) {
    this.#shell = spawn('bash', ['--noprofile', '--norc'], { cwd: projectRoot, env, detached: true });
    this.#shell.stdout.on('data', (chunk) => (this.#stdout += chunk));
    this.#shell.stderr.on('data', (chunk) => (this.#stderr += chunk));
  }

  async run(command: string, timeoutMs = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
    this.#stdout = '';
    this.#stderr = '';
    // In braces, so an export or a function stays in this shell; no standard input, as in a pasted line.
    this.#shell.stdin.write(`{\n${command}\n} </dev/null\nprintf '\\n${this.#mark}%s\\n' "$?"\nprintf '\\n${this.#mark}\\n' >&2\n`);
    const done = new RegExp(`\\n${this.#mark}(\\d+)\\n`);
    const deadline = Date.now() + timeoutMs;
    while (!(done.test(this.#stdout) && this.#stderr.includes(`\n${this.#mark}\n`))) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${command}\n${this.#stdout}\n${this.#stderr}`);
      if (this.#shell.exitCode !== null) throw new Error(`the shell exited (${this.#shell.exitCode}) running: ${command}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const code = Number(done.exec(this.#stdout)![1]);
    return { code, stdout: this.#stdout.slice(0, this.#stdout.search(done)), stderr: this.#stderr.slice(0, this.#stderr.indexOf(`\n${this.#mark}\n`)) };
  }

  close() {
    killGroup(this.#shell.pid);
  }
}

const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
const blocks = examplesOf(readme);

describe("the README's shell examples", () => {
  it('has shell examples to walk, and knows each one it does not run', () => {
    expect(blocks.length).toBeGreaterThan(15);
    // The deployed stack's blocks only: the stack outputs' helper `out`, SAM, the Meta secret and page token.
    const skipped = blocks.filter(needsAws).map((block) => block.examples[0]!.command.replace(/\s+#.*$/, ''));
    expect(skipped).toEqual(['export STAGE=prod', 'npm run synth', 'SECRET=$(out MetaSecretArn)', 'export META_PAGE_TOKEN_KEY_ID=$(out MetaPageTokenKeyArn)']);
    const own = blocks.flatMap((block) => block.examples).filter((example) => walksOwn(example.command));
    expect(own.map((example) => example.command.replace(/\s+#.*$/, ''))).toEqual(['npm ci', 'npm start', 'npm start', 'npm test']);
  });
});

describe('the README, walked top to bottom', () => {
  let service: StartedService | undefined;
  let terminal: Terminal | undefined;
  let port: number;
  let dynamoPort: number;
  let env: NodeJS.ProcessEnv;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'lead-intake-readme-'));

  beforeAll(async () => {
    // The README's examples are shell, curl, jq and openssl: a machine without one cannot walk them, and says which.
    const missing = ['bash', 'curl', 'jq', 'openssl'].filter((tool) => !(process.env.PATH ?? '').split(path.delimiter).some((dir) => existsSync(path.join(dir, tool))));
    if (missing.length > 0) throw new Error(`the README's examples need ${missing.join(', ')} on PATH`);
    port = await freePort();
    dynamoPort = await freePort();
    env = { ...process.env, PORT: String(port), DYNAMODB_PORT: String(dynamoPort), LEAD_INTAKE_DATA_DIR: dataDir };
    // A reader's shell has none of the test run's database settings.
    for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS', 'LEAD_INTAKE_SEED', 'AWS_REGION', 'AWS_PROFILE']) delete env[name];
    service = spawnNpmStart(projectRoot, env);
    await bannerOf(service, 120_000);
    terminal = new Terminal(env);
  }, 150_000);

  afterAll(async () => {
    terminal?.close();
    killGroup(service?.child.pid);
    await service?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives every documented answer, in the order written', async () => {
    const ran: string[] = [];
    const failures: string[] = [];
    const local = (command: string) => command.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`).replaceAll('127.0.0.1:8000', `127.0.0.1:${dynamoPort}`);
    for (const block of blocks.filter((candidate) => !needsAws(candidate))) {
      for (const example of block.examples) {
        if (walksOwn(example.command)) continue;
        const started = performance.now();
        const { code, stdout, stderr } = await terminal!.run(local(example.command));
        if (process.env.README_WALK_TIMES) process.stderr.write(`${Math.round(performance.now() - started)} ms  README.md:${example.line}\n`);
        ran.push(example.command);
        const output = `${stdout}\n${stderr}`;
        const missing = example.answers.filter((answer) => !holds(output, local(answer)));
        if (code !== example.exitCode || missing.length > 0) {
          failures.push(`README.md:${example.line}: ${example.command}\n  exit ${code} (documented ${example.exitCode})${missing.map((answer) => `\n  documented: ${answer}`).join('')}\n  output: ${output.trim().slice(0, 1_500)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // Every example of the blocks that need no AWS ran, but the walk's own npm ci / npm start / npm test.
    const runnable = blocks.filter((block) => !needsAws(block)).flatMap((block) => block.examples.filter((example) => !walksOwn(example.command)));
    expect(ran).toHaveLength(runnable.length);
    expect(ran.length).toBeGreaterThan(40);
  }, 400_000);
});
