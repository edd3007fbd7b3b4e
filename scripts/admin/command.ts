/**
 * What every admin CLI module is made of (scripts/admin.ts dispatches to them): a command's usage,
 * options and run function, the two refusals that set the exit code, and the small parsing and
 * printing helpers the verbs share. A verb parses its arguments, calls one domain operation (the one
 * the admin API calls too) and prints the answer; the rules live in the domain.
 */
import type { ParseArgsConfig } from 'node:util';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { isoInstant } from '../../shared/domain/api-keys.ts';
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';

export interface AdminIo {
  readonly env: NodeJS.ProcessEnv;
  /** The EventBridge client `replay-events` uses; the default credential chain's when not given. */
  readonly eventBridge?: () => EventBridgeClient;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** The terminal's width, for the help; absent when the output is not a terminal (80 then). */
  readonly columns?: number;
  /** Standard input, read whole (secrets such as a page token are read from it, never from an argument). */
  readonly stdin?: () => Promise<string>;
}

/** Bad arguments: exit code 2, with the command's usage. */
export class UsageError extends Error {
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

/** The command ran and failed: exit code 1. */
export class CommandError extends Error {}

export type OptionValues = Record<string, string | boolean | undefined>;

export interface CommandArgs {
  readonly values: OptionValues;
  readonly positionals: string[];
}

export interface Command {
  readonly usage: string;
  readonly summary: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  readonly positionals: readonly string[];
  /** The positionals may be left out (the command then checks what it was given). */
  readonly optionalPositionals?: boolean;
  /** False for a command that works on no table (replay-events): no table names or region needed. */
  readonly usesDatabase?: false;
  /** `repository()` opens the database on first use (a usage error never needs one). */
  readonly run: (args: CommandArgs, repository: () => DynamoDbRepository, io: AdminIo) => Promise<void>;
}

/** A module's verbs, by name (scripts/admin/modules.ts registers the module). */
export type CommandModule = Readonly<Record<string, Command>>;

export const HELP = { help: { type: 'boolean', short: 'h' } } as const;

export const required = (value: string | boolean | undefined, option: string, command: string): string => {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${option} is required`, command);
  return value;
};

export const optional = (value: string | boolean | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** A comma-separated option as a list: `--endpoints website,portala`. */
export const list = (value: string | boolean | undefined): string[] | undefined => (typeof value === 'string' ? value.split(',').map((item) => item.trim()) : undefined);

/** A number of seconds as the domain checks it (whole, not negative); text that is no number at all is refused here. */
export const seconds = (value: string, option: string, command: string): number => {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (Number.isNaN(n)) throw new UsageError(`${option} must be a whole number of seconds, not ${JSON.stringify(value)}`, command);
  return n;
};

/** An ISO-8601 date or date-time (`2025-01-31`, `2025-01-31T09:30`, `2025-01-31T09:30:00.000+05:30`), as UTC ISO text. */
export const isoTime = (value: string, option: string, command: string): string => {
  const time = isoInstant(value);
  if (!time) throw new UsageError(`${option} must be an ISO-8601 date or date-time such as 2025-01-31 or 2025-01-31T09:30:00Z, not ${JSON.stringify(value)}`, command);
  return time;
};

/**
 * What a terminal would act on instead of showing: C0 controls but tab and newline (ESC starts the
 * sequences that clear a screen or retitle a window, BEL, backspace and CR overwrite), DEL, C1 controls
 * (0x9b is a CSI on its own), and the invisible marks that reorder or break what follows (bidi
 * overrides, embeddings and isolates, the Arabic letter mark, U+2028/U+2029). Stored strings carry them
 * as any sender typed them (a call id, a lead's name).
 */
const UNSAFE_FOR_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * The text with each of those characters written as `\uXXXX`: visible in a table, and inside a JSON
 * string the escape JSON.parse reads back to the same character, so `--json` stays valid and exact
 * (JSON.stringify escapes C0 controls itself, but writes DEL, C1 and the bidi marks raw). Tab, newline
 * and space, the only other characters JSON puts outside strings, are left as they are.
 */
export const terminalSafe = (text: string): string =>
  text.replace(UNSAFE_FOR_TERMINAL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The io every command is given (scripts/admin.ts): each output passes terminalSafe, so no command,
 * table, message or `--json` answer can write a stored string raw.
 */
export const terminalSafeIo = (io: AdminIo): AdminIo => ({
  ...io,
  stdout: (text) => io.stdout(terminalSafe(text)),
  stderr: (text) => io.stderr(terminalSafe(text)),
});

/** An answer as JSON on standard output (`--json`), or as a table for a terminal. */
export const printJsonOr = (io: AdminIo, json: boolean | string | undefined, value: unknown, asText: () => string) =>
  io.stdout(json === true ? `${JSON.stringify(value, null, 2)}\n` : asText());

/** A table's cell on one line: escaped before it is measured, so the columns line up; other whitespace runs as one space. */
export const cellText = (value: unknown): string => terminalSafe(String(value ?? '')).replace(/\s+/g, ' ');

/** A header line and one line per item, in padded columns. */
export const table = <T,>(columns: readonly [string, (item: T) => unknown][], items: readonly T[]): string => {
  const rows = items.map((item) => columns.map(([, cell]) => cellText(cell(item))));
  const widths = columns.map(([title], i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `${cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()}\n`;
  return line(columns.map(([title]) => title)) + rows.map(line).join('');
};

/** The account exists, or the command fails (exit 1) naming it. */
export const existingAccount = async (repository: DynamoDbRepository, accountId: string) => {
  const account = await repository.accounts.loadAccount(accountId);
  if (!account) throw new CommandError(`account ${JSON.stringify(accountId)} does not exist`);
  return account;
};
