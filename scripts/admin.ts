/**
 * `npm run admin -- <command>`: configuration and leads of the service (CONTRACT.md section 6).
 *
 * The dispatcher alone: it finds the command among the modules of scripts/admin/ (registered one line
 * each in scripts/admin/modules.ts), parses its arguments, opens the database it needs and turns the
 * outcome into an exit code. The verbs live in their modules.
 *
 * Against DYNAMODB_ENDPOINT when it is set (a local DynamoDB; table names default to those of
 * `npm start`), otherwise against AWS with the default credential chain and the deployed stack's
 * table names in CONFIG_TABLE_NAME and LEADS_TABLE_NAME.
 *
 * Exit codes: 0 done, 1 the command failed (unknown account or key, invalid seed, database error),
 * 2 bad arguments.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { InvalidKeyOptionError, KeyAdminError } from '../shared/domain/errors.ts';
import type { DynamoDbRepository } from '../shared/dynamodb/repository.ts';
import { CommandError, terminalSafeIo, UsageError, type AdminIo, type Command, type CommandArgs } from './admin/command.ts';
import { databaseFor, type AdminDatabase } from './admin/database.ts';
import * as coreModules from './admin/modules.ts';
import { connectionSources, leadSources } from '../shared/sources/registry.ts';
import { connectionCommands } from './admin/connections.ts';
import { generalHelp } from './admin/help.ts';
import { describeError, projectRoot } from './local/environment.ts';
import { SeedError } from './local/seed.ts';

export type { AdminIo } from './admin/command.ts';
export { leadEventSettings } from './admin/events.ts';

/** The verbs of each declared source that has its own (its descriptor's `adminCli`). */
const sourceModules: Record<string, Readonly<Record<string, Command>>> = Object.fromEntries(
  await Promise.all(
    leadSources
      .filter((source) => source.adminCli !== undefined)
      .map(async ({ adminCli }) => [adminCli!.name, ((await import(path.join(projectRoot, adminCli!.module))) as { default: Readonly<Record<string, Command>> }).default]),
  ),
);

/** The verbs of each declared kind of connection (connect, list, remove, rotate a key), made of its declaration alone. */
const connectionModules: Record<string, Readonly<Record<string, Command>>> = Object.fromEntries(
  connectionSources.map(({ connection, route }) => [connection.cli.module, connectionCommands(connection, route.path)]),
);

/** Every module, by name, alphabetically: the help's order. */
const modules = Object.fromEntries(Object.entries({ ...coreModules, ...connectionModules, ...sourceModules }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Every verb of every module, by name; two modules naming the same verb is a programming error. */
const commands: Readonly<Record<string, Command>> = (() => {
  const all: Record<string, Command> = {};
  for (const [module, verbs] of Object.entries(modules)) {
    for (const [name, command] of Object.entries(verbs)) {
      if (all[name]) throw new Error(`admin command ${name} is defined twice (module ${module})`);
      all[name] = command;
    }
  }
  return all;
})();

const usageOf = (command: Command) => `Usage: npm run admin -- ${command.usage}\n  ${command.summary}\n`;

/** The general help at the operator's terminal width (help.ts). */
const generalUsage = (columns?: number) => generalHelp({ modules, sourceModules: [...Object.keys(connectionModules), ...Object.keys(sourceModules)] }, columns);

/**
 * `--grace -1` as `--grace=-1`: parseArgs takes a value that starts with '-' for an option, so the
 * domain can name the problem (a negative grace) instead of parseArgs calling it ambiguous.
 */
const joinNegativeNumbers = (args: readonly string[], command: Command): string[] => {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : undefined;
    const next = args[i + 1];
    if (name !== undefined && command.options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`--${name}=${next}`);
      i++;
    } else {
      joined.push(args[i]!);
    }
  }
  return joined;
};

/**
 * Runs one admin command; returns the exit code. Everything it writes passes terminalSafe: stored
 * strings are any sender's (a call id, a lead's name) and reach the operator's terminal.
 */
export const runAdmin = async (argv: readonly string[], terminal: AdminIo): Promise<number> => {
  const io = terminalSafeIo(terminal);
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout)(generalUsage(terminal.columns));
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  let database: AdminDatabase | undefined;
  try {
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: joinNegativeNumbers(rest, command), options: command.options, allowPositionals: true, strict: true });
    } catch (error) {
      // parseArgs adds advice on positionals that start with '-'; the first sentence is the problem.
      throw new UsageError((error as Error).message.split(/\.\s|\n/)[0]!, name);
    }
    if (parsed.values.help) {
      io.stdout(usageOf(command));
      return 0;
    }
    if (parsed.positionals.length !== command.positionals.length && !(command.optionalPositionals && parsed.positionals.length < command.positionals.length)) {
      const expected = command.positionals.length === 0 ? 'no arguments' : command.positionals.join(' ');
      throw new UsageError(`expected ${expected}, got ${parsed.positionals.length === 0 ? 'none' : parsed.positionals.map((p) => JSON.stringify(p)).join(' ')}`, name);
    }
    if (command.usesDatabase !== false) database = await databaseFor(io.env);
    let repository: DynamoDbRepository | undefined;
    await command.run(parsed as CommandArgs, () => (repository ??= database!.repository()), io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      const where = error.command ?? name;
      io.stderr(`admin ${where}: ${error.message}\n`);
      const named = error.command !== undefined && Object.hasOwn(commands, error.command) ? commands[error.command] : undefined;
      io.stderr(named ? usageOf(named) : generalUsage(terminal.columns));
      return 2;
    }
    if (error instanceof InvalidKeyOptionError) {
      io.stderr(`admin ${name}: --${error.option}: ${error.message}\n`);
      io.stderr(usageOf(command!));
      return 2;
    }
    if (error instanceof SeedError || error instanceof KeyAdminError) {
      io.stderr(`admin ${name}: ${error.message}\n`);
      return 1;
    }
    io.stderr(`admin ${name}: ${error instanceof CommandError ? error.message : describeError(error, database?.endpoint)}\n`);
    return 1;
  }
};

if (import.meta.main) {
  const code = await runAdmin(process.argv.slice(2), {
    env: process.env,
    ...(process.stdout.isTTY && { columns: process.stdout.columns }),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: async () => {
      if (process.stdin.isTTY) process.stderr.write('Paste the secret (a page access token, a challenge secret), then press Enter and Ctrl-D:\n');
      let text = '';
      for await (const chunk of process.stdin) text += chunk;
      return text;
    },
  });
  process.exitCode = code;
}
