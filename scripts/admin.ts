/**
 * `npm run admin -- <command>`: configuration and leads of the service (CONTRACT.md section 6).
 *
 * Against DYNAMODB_ENDPOINT when it is set (a local DynamoDB; table names default to those of
 * `npm start`), otherwise against AWS with the default credential chain and the deployed stack's
 * table names in CONFIG_TABLE_NAME and LEADS_TABLE_NAME.
 *
 * Exit codes: 0 done, 1 the command failed (unknown account or key, invalid seed, database error),
 * 2 bad arguments.
 */
import { randomBytes } from 'node:crypto';
import { EventBridgeClient, StartReplayCommand } from '@aws-sdk/client-eventbridge';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AccountAdmin } from '../shared/domain/account-admin.ts';
import { hashApiKey } from '../shared/domain/account-directory.ts';
import { AccountNotFoundError } from '../shared/domain/errors.ts';
import { duplicateSettings, type DuplicateSetting, type LeadRecord } from '../shared/domain/lead.ts';
import type { Rejection } from '../shared/domain/ports.ts';
import { createDocumentClient } from '../shared/dynamodb/client.ts';
import { DynamoDbRepository, type TableNames } from '../shared/dynamodb/repository.ts';
import { configTable, leadsTable } from '../shared/dynamodb/tables.ts';
import { runtimeSettings } from '../shared/routes.ts';
import { describeError, localTableNames } from './local/environment.ts';
import { applySeed, readSeedFile, SeedError } from './local/seed.ts';

export interface AdminIo {
  readonly env: NodeJS.ProcessEnv;
  /** The EventBridge client `replay-events` uses; the default credential chain's when not given. */
  readonly eventBridge?: () => EventBridgeClient;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** Bad arguments: exit code 2, with the command's usage. */
class UsageError extends Error {
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

/** The command ran and failed: exit code 1. */
class CommandError extends Error {}

interface Command {
  readonly usage: string;
  readonly summary: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  readonly positionals: readonly string[];
  readonly run: (args: { values: Record<string, string | boolean | undefined>; positionals: string[] }, repository: () => DynamoDbRepository, io: AdminIo) => Promise<void>;
}

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

const commands: Record<string, Command> = {
  seed: {
    usage: 'seed FILE',
    summary: 'Apply a seed file (accounts, projects, campaigns, sub sources, API keys); checked whole first, idempotent.',
    options: HELP,
    positionals: ['FILE'],
    run: async ({ positionals: [file] }, repository, io) => {
      const seed = await readSeedFile(file!);
      await applySeed(repository(), seed);
      io.stdout(`Applied ${file}: ${seed.accounts.length} account(s), ${seed.apiKeys.length} API key(s).\n`);
    },
  },
  'create-key': {
    usage: 'create-key --account ID',
    summary: 'Create an active API key for an account and print it, once: only its SHA-256 hash is stored.',
    options: { ...HELP, account: { type: 'string' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'create-key');
      const repo = repository();
      if (!(await repo.accounts.loadAccount(accountId))) throw new CommandError(`account ${JSON.stringify(accountId)} does not exist`);
      const key = `lk_${randomBytes(24).toString('base64url')}`;
      await repo.keys.saveApiKey(hashApiKey(key), { accountId, active: true });
      io.stdout(`${key}\n`);
      io.stderr(`API key created for account ${accountId}. It is shown only this once: store it now.\n`);
    },
  },
  'revoke-key': {
    usage: 'revoke-key KEY',
    summary: 'Make an API key inactive: it then answers 401 Invalid API credentials.',
    options: HELP,
    positionals: ['KEY'],
    run: async ({ positionals: [key] }, repository, io) => {
      if (!(await repository().keys.revokeApiKey(hashApiKey(key!)))) throw new CommandError('no such API key');
      io.stdout('API key revoked.\n');
    },
  },
  'set-duplicates': {
    usage: 'set-duplicates --account ID ignore|create|merge',
    summary: "Set an account's duplicate handling: ignore (422 Lead already exists), create (a repeated lead), merge (linked to the original).",
    options: { ...HELP, account: { type: 'string' } },
    positionals: ['SETTING'],
    run: async ({ values, positionals: [setting] }, repository, io) => {
      const accountId = required(values.account, '--account', 'set-duplicates');
      if (!duplicateSettings.includes(setting as DuplicateSetting)) {
        throw new UsageError(`the setting must be one of ${duplicateSettings.join(', ')}, not ${JSON.stringify(setting)}`, 'set-duplicates');
      }
      try {
        await new AccountAdmin(repository().accounts).setDuplicateSetting(accountId, setting!);
      } catch (error) {
        if (error instanceof AccountNotFoundError) throw new CommandError(`account ${JSON.stringify(accountId)} does not exist`);
        throw error;
      }
      io.stdout(`Duplicate handling of account ${accountId} is now ${setting}.\n`);
    },
  },
  leads: {
    usage: 'leads --account ID [--project ID] [--json]',
    summary: "List an account's leads, oldest first: a table, or with --json the lead records as a JSON array.",
    options: { ...HELP, account: { type: 'string' }, project: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'leads');
      const repo = repository();
      const account = await repo.accounts.loadAccount(accountId);
      if (!account) throw new CommandError(`account ${JSON.stringify(accountId)} does not exist`);
      const project = values.project as string | undefined;
      // Retired projects keep their leads: they are listed too.
      const projectIds = await repo.accounts.allProjectIds(accountId);
      if (project !== undefined && !projectIds.includes(project)) {
        throw new CommandError(`project ${JSON.stringify(project)} is not a project of account ${accountId}`);
      }
      const leads = await repo.leads.listLeads(accountId, project === undefined ? projectIds : [project]);
      io.stdout(values.json ? `${JSON.stringify(leads, null, 2)}\n` : leadTable(leads));
    },
  },
  rejections: {
    usage: 'rejections --account ID [--since ISO-8601] [--json]',
    summary: "List an account's rejected submissions (422s) of the last 30 days, oldest first: a table, or a JSON array with --json.",
    options: { ...HELP, account: { type: 'string' }, since: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'rejections');
      const since = values.since === undefined ? undefined : isoTime(values.since as string, '--since', 'rejections');
      const repo = repository();
      if (!(await repo.accounts.loadAccount(accountId))) throw new CommandError(`account ${JSON.stringify(accountId)} does not exist`);
      // Kept 30 days: DynamoDB's TTL deletes lazily (up to days late), so older records are not shown.
      const oldest = new Date(Date.now() - REJECTIONS_KEPT_MS).toISOString();
      const rejections = (await repo.rejections.listRejections(accountId, since)).filter((rejection) => rejection.at >= oldest);
      io.stdout(values.json ? `${JSON.stringify(rejections, null, 2)}\n` : rejectionTable(rejections));
    },
  },
  'replay-events': {
    usage: 'replay-events --since ISO-8601 [--until ISO-8601]',
    summary:
      "Replay the archived Lead Created events of a period (until now by default) to the CRM delivery, after its endpoint lost some (AWS only; LEAD_EVENTS_ARCHIVE_ARN, LEAD_EVENTS_BUS_ARN and LEAD_EVENTS_DELIVERY_RULE_ARN from the stack's outputs).",
    options: { ...HELP, since: { type: 'string' }, until: { type: 'string' } },
    positionals: [],
    run: async ({ values }, _repository, io) => {
      const since = isoTime(required(values.since, '--since', 'replay-events'), '--since', 'replay-events');
      const until = values.until === undefined ? new Date().toISOString() : isoTime(values.until as string, '--until', 'replay-events');
      if (until <= since) throw new UsageError(`--until (${until}) must be after --since (${since})`, 'replay-events');
      if (io.env[runtimeSettings.dynamodbEndpoint]) {
        throw new CommandError('replay-events works on the deployed stack only: the local run keeps no archive (its webhook delivery retries instead); unset DYNAMODB_ENDPOINT');
      }
      const archive = io.env[leadEventSettings.archiveArn];
      const bus = io.env[leadEventSettings.busArn];
      const rule = io.env[leadEventSettings.deliveryRuleArn];
      if (!archive || !bus) {
        throw new CommandError(`set ${leadEventSettings.archiveArn} and ${leadEventSettings.busArn} to the deployed stack's outputs EventArchiveArn and EventBusArn (and ${leadEventSettings.deliveryRuleArn} to CrmDeliveryRuleArn, to replay to the CRM delivery only)`);
      }
      // EventBridge replay names: up to 64 letters, digits, '.', '-', '_'.
      const name = `lead-events-${since.replace(/[^0-9]/g, '').slice(0, 14)}-${randomBytes(4).toString('hex')}`;
      const client = io.eventBridge?.() ?? new EventBridgeClient({});
      const { State } = await client.send(
        new StartReplayCommand({
          ReplayName: name,
          Description: `Lead Created events from ${since} to ${until}`,
          EventSourceArn: archive,
          EventStartTime: new Date(since),
          EventEndTime: new Date(until),
          Destination: { Arn: bus, ...(rule && { FilterArns: [rule] }) },
        }),
      );
      io.stdout(`${name}\n`);
      io.stderr(
        `Replay ${name} ${State?.toLowerCase() ?? 'started'}: Lead Created events from ${since} to ${until}, to ${rule ? 'the CRM delivery rule only' : 'every rule of the bus'}. ` +
          `Receivers deduplicate by detail.lead.id. Follow it with: aws events describe-replay --replay-name ${name}\n`,
      );
    },
  },
};

/** Where `replay-events` finds the deployed stack's event archive, bus and CRM delivery rule (its outputs). */
export const leadEventSettings = {
  archiveArn: 'LEAD_EVENTS_ARCHIVE_ARN',
  busArn: 'LEAD_EVENTS_BUS_ARN',
  deliveryRuleArn: 'LEAD_EVENTS_DELIVERY_RULE_ARN',
} as const;

const REJECTIONS_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

const required = (value: string | boolean | undefined, option: string, command: string): string => {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${option} is required`, command);
  return value;
};

/** An ISO-8601 date or date-time (`2025-01-31`, `2025-01-31T09:30`, `2025-01-31T09:30:00.000+05:30`), as UTC ISO text. */
const isoTime = (value: string, option: string, command: string): string => {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i.exec(value.trim());
  const time = match ? new Date(value.trim()) : undefined;
  // V8 reads 2025-02-30 as March 2: the day must exist in its month.
  const day = match && new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (!match || !time || Number.isNaN(time.getTime()) || !day || day.getUTCDate() !== Number(match[3]) || day.getUTCMonth() !== Number(match[2]) - 1) {
    throw new UsageError(`${option} must be an ISO-8601 date or date-time such as 2025-01-31 or 2025-01-31T09:30:00Z, not ${JSON.stringify(value)}`, command);
  }
  return time.toISOString();
};

const usageOf = (name: string, command: Command) => `Usage: npm run admin -- ${command.usage}\n  ${command.summary}\n`;

const generalUsage = () => {
  const width = Math.max(...Object.values(commands).map((c) => c.usage.length));
  return [
    'Usage: npm run admin -- <command> [options]     (npm run -s admin -- ... prints only the output)',
    '',
    ...Object.values(commands).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    `  ${'<command> --help'.padEnd(width)}  this command in detail`,
    '',
    'Database: DYNAMODB_ENDPOINT when set (tables default to those of npm start), else AWS with the default',
    'credential chain and the stack outputs in CONFIG_TABLE_NAME and LEADS_TABLE_NAME.',
    '',
  ].join('\n');
};

/** The lead records as a table for a terminal; every field of each lead stays in --json. */
const leadTable = (leads: readonly LeadRecord[]): string => {
  if (leads.length === 0) return 'No leads.\n';
  const columns: [string, (lead: LeadRecord) => unknown][] = [
    ['id', (l) => l.id],
    ['created_at', (l) => l.created_at],
    ['project', (l) => l.projectID],
    ['campaign', (l) => l.campaignID],
    ['source', (l) => l.source],
    ['sub_source', (l) => l.sub_source],
    ['name', (l) => l.name],
    ['mobile', (l) => l.mobile_number],
    ['email', (l) => l.email],
    ['repeat of', (l) => (l.is_repeated ? (l.parent_lead_id ?? 'yes') : '')],
  ];
  return table(columns, leads) + `${leads.length} lead(s)\n`;
};

/** A header line and one line per item, in padded columns. */
const table = <T,>(columns: readonly [string, (item: T) => unknown][], items: readonly T[]): string => {
  const rows = items.map((item) => columns.map(([, cell]) => String(cell(item) ?? '').replace(/\s+/g, ' ')));
  const widths = columns.map(([title], i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `${cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()}\n`;
  return line(columns.map(([title]) => title)) + rows.map(line).join('');
};

/** The rejections as a table for a terminal; every field of each stays in --json. */
const rejectionTable = (rejections: readonly Rejection[]): string => {
  if (rejections.length === 0) return 'No rejected submissions.\n';
  const columns: [string, (rejection: Rejection) => unknown][] = [
    ['time', (r) => r.at],
    ['endpoint', (r) => r.endpoint],
    ['reason', (r) => r.reason],
    ['message', (r) => r.message],
    ['mobile', (r) => r.mobile],
    ['fields', (r) => compactFields(r.fields)],
  ];
  return table(columns, rejections) + `${rejections.length} rejected submission(s)\n`;
};

/** `mobile_number: must be a 10-digit ...; email: must be ...` or `projectID: PRJ-9`: one line per rejection. */
const compactFields = (fields: Readonly<Record<string, unknown>>): string =>
  Object.entries(fields ?? {})
    .map(([name, value]) => {
      const text = Array.isArray(value) ? value.join(' ') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
      return `${name}: ${text.startsWith(`${name} `) ? text.slice(name.length + 1) : text}`;
    })
    .join('; ');

/** The tables and client: local when DYNAMODB_ENDPOINT is set, else AWS with the stack's table names. */
const repositoryFor = (env: NodeJS.ProcessEnv): DynamoDbRepository => {
  const endpoint = env[runtimeSettings.dynamodbEndpoint];
  let tables: TableNames;
  if (endpoint) {
    tables = localTableNames(env);
  } else {
    const config = env[configTable.envVar];
    const leads = env[leadsTable.envVar];
    if (!config || !leads) {
      throw new CommandError(
        `set ${configTable.envVar} and ${leadsTable.envVar} to the deployed stack's table names (its outputs ConfigTableName and LeadsTableName), or DYNAMODB_ENDPOINT for a local DynamoDB`,
      );
    }
    tables = { config, leads };
  }
  return new DynamoDbRepository(createDocumentClient(endpoint ? { endpoint } : {}), tables);
};

/** Runs one admin command; returns the exit code. */
export const runAdmin = async (argv: readonly string[], io: AdminIo): Promise<number> => {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout)(generalUsage());
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  try {
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: [...rest], options: command.options, allowPositionals: true, strict: true });
    } catch (error) {
      // parseArgs adds advice on positionals that start with '-'; the first sentence is the problem.
      throw new UsageError((error as Error).message.split(/\.\s|\n/)[0]!, name);
    }
    if (parsed.values.help) {
      io.stdout(usageOf(name, command));
      return 0;
    }
    if (parsed.positionals.length !== command.positionals.length) {
      const expected = command.positionals.length === 0 ? 'no arguments' : command.positionals.join(' ');
      throw new UsageError(`expected ${expected}, got ${parsed.positionals.length === 0 ? 'none' : parsed.positionals.map((p) => JSON.stringify(p)).join(' ')}`, name);
    }
    let repository: DynamoDbRepository | undefined;
    await command.run(parsed as Parameters<Command['run']>[0], () => (repository ??= repositoryFor(io.env)), io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      const where = error.command ?? name;
      io.stderr(`admin ${where}: ${error.message}\n`);
      io.stderr(error.command && commands[error.command] ? usageOf(error.command, commands[error.command]!) : generalUsage());
      return 2;
    }
    if (error instanceof SeedError) {
      io.stderr(`admin ${name}: ${error.message}\n`);
      return 1;
    }
    io.stderr(`admin ${name}: ${error instanceof CommandError ? error.message : describeError(error)}\n`);
    return 1;
  }
};

if (import.meta.main) {
  const code = await runAdmin(process.argv.slice(2), {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
  process.exitCode = code;
}
