/**
 * A machine with Node but no Java (or a Java too old for DynamoDB Local): every command that needs
 * DynamoDB Local says so in one line, names what to install, and exits 1, instead of crashing on an
 * unhandled `spawn java ENOENT`. The real processes run with a PATH that holds node, npm and sh only.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { dynamoDbLocalOn } from '../support/processes.ts';

/** Where a command is on this test run's PATH. */
const onPath = (command: string): string => {
  const found = (process.env.PATH ?? '').split(path.delimiter).map((folder) => path.join(folder, command)).find((file) => existsSync(file));
  if (!found) throw new Error(`${command} is not on PATH`);
  return found;
};

const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-nojava-'));

/** A folder for PATH with node, npm and sh: everything `npm start` and `npm test` need but Java. */
const withoutJava = path.join(dir, 'bin');
mkdirSync(withoutJava);
symlinkSync(process.execPath, path.join(withoutJava, 'node'));
for (const [name, target] of [
  ['npm', onPath('npm')],
  ['sh', onPath('sh')],
] as const) {
  symlinkSync(target, path.join(withoutJava, name));
}

/** The same, plus a `java` that fails the way Java 11 fails on DynamoDB Local's class files. */
const oldJava = path.join(dir, 'old-java');
mkdirSync(oldJava);
for (const name of ['node', 'npm', 'sh']) symlinkSync(path.join(withoutJava, name), path.join(oldJava, name));
writeFileSync(
  path.join(oldJava, 'java'),
  `#!/bin/sh\necho 'Error: LinkageError occurred while loading main class com.amazonaws.services.dynamodbv2.local.main.ServerRunner' >&2\necho '\tjava.lang.UnsupportedClassVersionError: ServerRunner has been compiled by a more recent version of the Java Runtime (class file version 61.0), this version of the Java Runtime only recognizes class file versions up to 55.0' >&2\nexit 1\n`,
);
chmodSync(path.join(oldJava, 'java'), 0o755);

const INSTALL = 'DynamoDB Local needs Java 17 or later on PATH (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17)';

/** Runs a command as a newcomer would; the npm client's own notices are not the project's output. */
const run = (command: string, args: string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; lines: string[] }>((resolve) => {
    const clean: NodeJS.ProcessEnv = { HOME: process.env.HOME, LEAD_INTAKE_DATA_DIR: ':memory:', ...env };
    const child = spawn(path.join(env.PATH!, command), args, { cwd: projectRoot, env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => {
      const lines = stderr.split('\n').filter((line) => line.trim() && !/^npm (warn|error|notice)/.test(line));
      resolve({ code, stdout, lines });
    });
  });

describe('without Java on the machine', () => {
  it('npm start says Java is missing and what to install, in one line, and exits 1', async () => {
    const port = await freePort();
    const dynamoPort = await freePort();
    const { code, lines } = await run('npm', ['start'], { PATH: withoutJava, PORT: String(port), DYNAMODB_PORT: String(dynamoPort) });
    expect(lines).toEqual([`npm start: Java was not found: ${INSTALL}; or set DYNAMODB_ENDPOINT to a DynamoDB that is already running`]);
    expect(code).toBe(1);
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });

  it("npm test's DynamoDB Local setup says Java is missing in one line and exits 1 before any test runs", async () => {
    const { code, lines, stdout } = await run('npm', ['test', '--', 'test/unit/lead-ids.test.ts'], { PATH: withoutJava });
    expect(lines).toEqual([`npm test: Java was not found: ${INSTALL}`]);
    expect(stdout).not.toMatch(/Tests:/);
    expect(code).toBe(1);
  });

  it('npm run invoke, which starts a throw-away DynamoDB Local, says so in one line and exits 1', async () => {
    const { code, lines } = await run('npm', ['run', '-s', 'invoke', '--', 'website', 'events/website.json'], { PATH: withoutJava });
    expect(lines).toEqual([`invoke: Java was not found: ${INSTALL}`]);
    expect(code).toBe(1);
  });

  it('the admin CLI needs no Java: it works on a running DynamoDB without it', async () => {
    const { code, stdout, lines } = await run('npm', ['run', '-s', 'admin', '--', 'leads', '--account', 'acc-nobody', '--json'], {
      PATH: withoutJava,
      DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT!,
      CONFIG_TABLE_NAME: 'missing-java-config',
      LEADS_TABLE_NAME: 'missing-java-leads',
    });
    // The tables do not exist on the run's database: the answer comes from DynamoDB, not from a spawn.
    expect(stdout).toBe('');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^admin leads: .*CONFIG_TABLE_NAME/);
    expect(lines[0]).not.toMatch(/java/i);
    expect(code).toBe(1);
  });
});

describe('with a Java older than 17', () => {
  it('npm start says the Java is too old and what to install, in one line, and exits 1', async () => {
    const port = await freePort();
    const dynamoPort = await freePort();
    const { code, lines } = await run('npm', ['start'], { PATH: oldJava, PORT: String(port), DYNAMODB_PORT: String(dynamoPort) });
    expect(lines).toEqual([`npm start: the installed Java is too old: ${INSTALL}; or set DYNAMODB_ENDPOINT to a DynamoDB that is already running`]);
    expect(code).toBe(1);
    expect(dynamoDbLocalOn(dynamoPort)).toEqual([]);
  });
});

describe('what a fresh machine needs', () => {
  it('is Java alone: CI installs a Java runtime and nothing else, as the README says', () => {
    const ci = readFileSync(path.join(projectRoot, '.ci', 'run'), 'utf8');
    const installs = [...ci.matchAll(/apt-get install[^\n]*/g)].map(([line]) => line.split(/\s+/).filter((word) => !word.startsWith('-') && !['apt-get', 'install'].includes(word) && !word.startsWith('>')));
    expect(installs.flat()).toEqual(['openjdk-17-jre-headless']);
    expect(ci).not.toMatch(/chromium|playwright install|npx playwright/i);
    const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
    expect(readme).toContain('the only thing the machine needs is Java 17+');
  });
});
