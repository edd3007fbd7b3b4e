/**
 * The README walked top to bottom, as a reader follows it, and on through the pages it sends a newcomer
 * to (readme-examples.ts `newcomerPath`: sending leads, running it locally, the Meta, Google Ads, call and
 * WhatsApp pages): every shell example of their ```bash blocks runs in the order written, in one shell (what one example exports, the next one has), against one
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
 * Where the machine lacks curl, jq or openssl, the walk's shell has npm test's stand-ins for them
 * (test/support/stand-ins.ts), and its webhook blocks are walked again with nothing but the stand-ins.
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
import { standInTools, withoutTools, withStandIns } from '../support/stand-ins.ts';
import { newcomerBlocks, newcomerPath, type Block } from './readme-examples.ts';

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
const blocks = newcomerBlocks();

describe("the README's shell examples", () => {
  it("walks only pages the README links: the newcomer's path is the README's", () => {
    const linked = [...readme.matchAll(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g)].map((match) => match[1]);
    expect(newcomerPath.slice(1).filter((file) => !linked.includes(file))).toEqual([]);
  });

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
  const terminals: Terminal[] = [];
  let port: number;
  let dynamoPort: number;
  let env: NodeJS.ProcessEnv;
  const temporary = [mkdtempSync(path.join(tmpdir(), 'lead-intake-readme-'))];
  const dataDir = temporary[0]!;

  /** A reader's terminal: a machine's own curl, jq and openssl, and npm test's stand-ins for those it lacks. */
  const terminalWith = (pathVariable: string) => {
    const { path: withTools, bin } = withStandIns(pathVariable);
    if (bin) temporary.push(bin);
    const terminal = new Terminal({ ...env, PATH: withTools });
    terminals.push(terminal);
    return terminal;
  };

  /** Runs the examples of some blocks in a terminal: what ran, and each answer that was not as documented. */
  const walk = async (terminal: Terminal, walked: Block[]) => {
    const ran: string[] = [];
    const failures: string[] = [];
    const local = (command: string) => command.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`).replaceAll('127.0.0.1:8000', `127.0.0.1:${dynamoPort}`);
    for (const block of walked) {
      for (const example of block.examples) {
        if (walksOwn(example.command)) continue;
        const started = performance.now();
        const { code, stdout, stderr } = await terminal.run(local(example.command));
        if (process.env.README_WALK_TIMES) process.stderr.write(`${Math.round(performance.now() - started)} ms  ${block.file}:${example.line}\n`);
        ran.push(example.command);
        const output = `${stdout}\n${stderr}`;
        const missing = example.answers.filter((answer) => !holds(output, local(answer)));
        if (code !== example.exitCode || missing.length > 0) {
          failures.push(`${block.file}:${example.line}: ${example.command}\n  exit ${code} (documented ${example.exitCode})${missing.map((answer) => `\n  documented: ${answer}`).join('')}\n  output: ${output.trim().slice(0, 1_500)}`);
        }
      }
    }
    return { ran, failures };
  };

  beforeAll(async () => {
    // bash runs the examples; curl, jq and openssl the machine lacks have stand-ins (test/support/stand-ins.ts).
    if (!(process.env.PATH ?? '').split(path.delimiter).some((dir) => existsSync(path.join(dir, 'bash')))) throw new Error("the README's examples need bash on PATH");
    port = await freePort();
    dynamoPort = await freePort();
    env = { ...process.env, PORT: String(port), DYNAMODB_PORT: String(dynamoPort), LEAD_INTAKE_DATA_DIR: dataDir };
    // A reader's shell has none of the test run's database settings.
    for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS', 'LEAD_INTAKE_SEED', 'AWS_REGION', 'AWS_PROFILE']) delete env[name];
    service = spawnNpmStart(projectRoot, env);
    await bannerOf(service, 120_000);
  }, 150_000);

  afterAll(async () => {
    for (const terminal of terminals) terminal.close();
    killGroup(service?.child.pid);
    await service?.exited;
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  });

  it('gives every documented answer, in the order written', async () => {
    const runnable = blocks.filter((block) => !needsAws(block));
    const { ran, failures } = await walk(terminalWith(env.PATH ?? ''), runnable);
    expect(failures).toEqual([]);
    // Every example of the blocks that need no AWS ran, but the walk's own npm ci / npm start / npm test.
    expect(ran).toHaveLength(runnable.flatMap((block) => block.examples.filter((example) => !walksOwn(example.command))).length);
    expect(ran.length).toBeGreaterThan(40);
  }, 400_000);

  // The whole walk again on a machine without the tools would double its time. The stand-ins answer the
  // README's own invocations as the real tools do (stand-ins.test.ts); here, on the same service after
  // the walk, the webhook blocks' examples that use curl, jq or openssl run again: a webhook's delivery
  // is idempotent (a provider's retry is the same delivery), so their documented answers hold again.
  it('gives the same answers from its webhook examples on a machine without curl, jq and openssl, with the stand-ins', async () => {
    const stripped = withoutTools(env.PATH ?? '');
    temporary.push(stripped.dir);
    const terminal = terminalWith(stripped.path);
    const found = await terminal.run(`command -v ${standInTools.join(' ')}`);
    const folders = found.stdout.trim().split('\n').map((file) => path.dirname(file));
    expect(folders).toHaveLength(standInTools.length);
    expect(new Set(folders).size).toBe(1);
    expect(folders[0]).toContain('lead-intake-stand-ins-');

    const usesTool = (command: string) => new RegExp(`(^|[\\s|(;])(${standInTools.join('|')}) `).test(command);
    const webhookBlocks = blocks
      .filter((block) => !needsAws(block) && block.examples.some(({ command }) => /\bcurl .*-webhook\b/.test(command)))
      .map((block) => ({ ...block, examples: block.examples.filter((example) => usesTool(example.command)) }));
    const commands = webhookBlocks.flatMap((block) => block.examples.map((example) => example.command)).join('\n');
    for (const tool of standInTools) expect(commands).toMatch(new RegExp(`(^|[\\s|(])${tool} `, 'm'));
    const { ran, failures } = await walk(terminal, webhookBlocks);
    expect(failures).toEqual([]);
    expect(ran.length).toBeGreaterThanOrEqual(8);
  }, 120_000);
});
