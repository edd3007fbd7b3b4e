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
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EventBridgeClient, StartReplayCommand } from '@aws-sdk/client-eventbridge';
import { AccountAdmin } from '../shared/domain/account-admin.ts';
import { createKey, isoInstant, listKeys, revokeKey, rotateKey, type IssuedKey, type KeySummary } from '../shared/domain/api-keys.ts';
import { AccountNotFoundError, InvalidKeyOptionError, KeyAdminError } from '../shared/domain/errors.ts';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { duplicateSettings, type DuplicateSetting, type LeadRecord } from '../shared/domain/lead.ts';
import type { Rejection } from '../shared/domain/ports.ts';
import { createDocumentClient } from '../shared/dynamodb/client.ts';
import { DynamoDbRepository } from '../shared/dynamodb/repository.ts';
import { configTable, leadsTable } from '../shared/dynamodb/tables.ts';
import { runtimeSettings } from '../shared/routes.ts';
import { describeError, localTableNames } from './local/environment.ts';
import { applySeed, readSeedFile, SeedError } from './local/seed.ts';
import { metaPageCommands } from './local/meta-admin.ts';
import { googleFormCommands } from './admin-google-forms.ts';

export interface AdminIo {
  readonly env: NodeJS.ProcessEnv;
  /** The EventBridge client `replay-events` uses; the default credential chain's when not given. */
  readonly eventBridge?: () => EventBridgeClient;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Standard input, read whole (add-meta-page reads the page token from it). */
  readonly stdin?: () => Promise<string>;
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
  /** The positionals may be left out (the command then checks what it was given). */
  readonly optionalPositionals?: boolean;
  /** False for a command that works on no table (replay-events): no table names or region needed. */
  readonly usesDatabase?: false;
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
    usage: 'create-key --account ID [--label TEXT] [--endpoints LIST] [--origins LIST] [--expires ISO-8601] [--json]',
    summary:
      'Create an active API key and print it, once (only its SHA-256 hash is stored). LIST is comma-separated: endpoints of ' +
      'website, portala, portalb, social; origins scheme://host[:port] make a browser key (website only). --json prints the key with its details.',
    options: { ...HELP, account: { type: 'string' }, label: { type: 'string' }, endpoints: { type: 'string' }, origins: { type: 'string' }, expires: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'create-key');
      const issued = await createKey(keyAdmin(repository()), {
        accountId,
        label: optional(values.label),
        endpoints: list(values.endpoints),
        origins: list(values.origins),
        expiresAt: optional(values.expires),
      });
      printIssued(issued, values.json === true, io, `API key ${issued.key_id} created for account ${accountId}.`);
    },
  },
  'list-keys': {
    usage: 'list-keys --account ID [--json]',
    summary: "List an account's API keys (key id, label, endpoints, origins, active, created, expires): never a key or its hash.",
    options: { ...HELP, account: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'list-keys');
      const keys = await listKeys(keyAdmin(repository()), accountId);
      io.stdout(values.json ? `${JSON.stringify(keys, null, 2)}\n` : keyTable(keys));
    },
  },
  'revoke-key': {
    usage: 'revoke-key KEY | revoke-key --id KEY_ID',
    summary: 'Make an API key inactive, given the key or its key id: it then answers 401 Invalid API credentials.',
    options: { ...HELP, id: { type: 'string' } },
    positionals: ['KEY'],
    optionalPositionals: true,
    run: async ({ values, positionals: [key] }, repository, io) => {
      if (key === undefined && values.id === undefined) throw new UsageError('give the key to revoke, or --id KEY_ID', 'revoke-key');
      if (key !== undefined && values.id !== undefined) throw new UsageError('give the key or --id KEY_ID, not both', 'revoke-key');
      const keyId = values.id === undefined ? undefined : required(values.id, '--id', 'revoke-key');
      const revoked = await revokeKey(keyAdmin(repository()), keyId === undefined ? { key: key! } : { keyId });
      io.stdout(revoked.key_id ? `API key ${revoked.key_id} revoked.\n` : 'API key revoked.\n');
    },
  },
  'rotate-key': {
    usage: 'rotate-key --id KEY_ID [--grace SECONDS] [--expires ISO-8601] [--json]',
    summary:
      "Replace a key: a new key with the old one's account, label, endpoints and origins, printed like create-key; the old key " +
      'keeps working for the grace period (default 86400 seconds; 0 ends it at once).',
    options: { ...HELP, id: { type: 'string' }, grace: { type: 'string' }, expires: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const keyId = required(values.id, '--id', 'rotate-key');
      const rotated = await rotateKey(keyAdmin(repository()), {
        keyId,
        ...(values.grace !== undefined && { graceSeconds: seconds(values.grace as string, '--grace', 'rotate-key') }),
        expiresAt: optional(values.expires),
      });
      printIssued(
        rotated,
        values.json === true,
        io,
        `API key ${rotated.key_id} replaces ${rotated.replaces.key_id}, which keeps working until ${rotated.replaces.expires_at}.`,
      );
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
    summary: "List an account's rejected submissions (422s, and bots caught by a browser key's honeypot) of the last 30 days, oldest first: a table, or a JSON array with --json.",
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
  // Meta Lead Ads: connected pages and their lead forms (scripts/local/meta-admin.ts).
  ...metaPageCommands({ usage: (message, command) => new UsageError(message, command), failure: (message) => new CommandError(message) }),
  // Google Ads lead forms: connected forms and their keys (scripts/admin-google-forms.ts).
  ...googleFormCommands({ usage: (message, command) => new UsageError(message, command) }),
  'replay-events': {
    usage: 'replay-events --since ISO-8601 [--until ISO-8601]',
    summary:
      "Replay the archived Lead Created events of a period (until now by default) to the CRM delivery, after its endpoint lost some (AWS only; LEAD_EVENTS_ARCHIVE_ARN, LEAD_EVENTS_BUS_ARN and LEAD_EVENTS_DELIVERY_RULE_ARN from the stack's outputs).",
    options: { ...HELP, since: { type: 'string' }, until: { type: 'string' } },
    positionals: [],
    usesDatabase: false,
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

/** The key lifecycle's dependencies: the repository's key and account stores. */
const keyAdmin = (repository: DynamoDbRepository) => ({ keys: repository.keys, accounts: repository.accounts });

const optional = (value: string | boolean | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** A comma-separated option as a list: `--endpoints website,portala`. */
const list = (value: string | boolean | undefined): string[] | undefined => (typeof value === 'string' ? value.split(',').map((item) => item.trim()) : undefined);

/** A number of seconds as the domain checks it (whole, not negative); text that is no number at all is refused here. */
const seconds = (value: string, option: string, command: string): number => {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (Number.isNaN(n)) throw new UsageError(`${option} must be a whole number of seconds, not ${JSON.stringify(value)}`, command);
  return n;
};

/** A new key: alone on standard output (for `$(...)`), or with its details as one JSON object with --json. */
const printIssued = (issued: IssuedKey, json: boolean, io: AdminIo, note: string) => {
  io.stdout(json ? `${JSON.stringify(issued, null, 2)}\n` : `${issued.key}\n`);
  io.stderr(`${note} The key is shown only this once: store it now.\n`);
};

/** The keys as a table for a terminal. */
const keyTable = (keys: readonly KeySummary[]): string => {
  if (keys.length === 0) return 'No API keys with a key id.\n';
  const columns: [string, (key: KeySummary) => unknown][] = [
    ['key_id', (k) => k.key_id],
    ['label', (k) => k.label],
    ['endpoints', (k) => k.endpoints?.join(',') ?? 'all'],
    ['origins', (k) => k.origins?.join(',') ?? ''],
    ['active', (k) => (k.active ? 'yes' : 'no')],
    ['created_at', (k) => k.created_at],
    ['expires_at', (k) => k.expires_at ?? 'never'],
  ];
  return table(columns, keys) + `${keys.length} key(s)\n`;
};

const REJECTIONS_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

const required = (value: string | boolean | undefined, option: string, command: string): string => {
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${option} is required`, command);
  return value;
};

/** An ISO-8601 date or date-time (`2025-01-31`, `2025-01-31T09:30`, `2025-01-31T09:30:00.000+05:30`), as UTC ISO text. */
const isoTime = (value: string, option: string, command: string): string => {
  const time = isoInstant(value);
  if (!time) throw new UsageError(`${option} must be an ISO-8601 date or date-time such as 2025-01-31 or 2025-01-31T09:30:00Z, not ${JSON.stringify(value)}`, command);
  return time;
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
    // A Meta lead is found by its leadgen id (Meta's lead center shows it), a Google one by its lead id.
    ['endpoint', (r) => (r.meta_leadgen_id ? `${r.endpoint} leadgen ${r.meta_leadgen_id}` : r.google_lead_id ? `${r.endpoint} lead ${r.google_lead_id}` : r.endpoint)],
    ['reason', (r) => r.reason],
    ['message', (r) => r.message],
    ['mobile', (r) => r.mobile],
    ['fields', (r) => compactFields(r.fields) + (r.omittedFields ? `; and ${r.omittedFields} more` : '')],
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

/**
 * The AWS region of the deployed stack, as the SDK finds it (AWS_REGION, or the `region` of the AWS
 * profile). Without one the SDK would be handed a made-up region and look up a host that does not
 * exist, so the CLI says what is missing instead.
 */
const awsRegion = async (env: NodeJS.ProcessEnv): Promise<string> => {
  if (env.AWS_REGION) return env.AWS_REGION;
  try {
    return await new DynamoDBClient({}).config.region();
  } catch {
    const profile = env.AWS_PROFILE ? ` (the AWS profile ${JSON.stringify(env.AWS_PROFILE)} names none)` : '';
    throw new CommandError(
      `no AWS region${profile}: set AWS_REGION to the deployed stack's region, or a region in your AWS profile; or DYNAMODB_ENDPOINT for a local DynamoDB`,
    );
  }
};

/** The database of a command: local when DYNAMODB_ENDPOINT is set, else AWS with the stack's table names. */
const databaseFor = async (env: NodeJS.ProcessEnv): Promise<{ endpoint: string; repository: () => DynamoDbRepository }> => {
  const local = env[runtimeSettings.dynamodbEndpoint];
  if (local) {
    return { endpoint: local, repository: () => new DynamoDbRepository(createDocumentClient({ endpoint: local }), localTableNames(env)) };
  }
  const config = env[configTable.envVar];
  const leads = env[leadsTable.envVar];
  if (!config || !leads) {
    throw new CommandError(
      `set ${configTable.envVar} and ${leadsTable.envVar} to the deployed stack's table names (its outputs ConfigTableName and LeadsTableName), or DYNAMODB_ENDPOINT for a local DynamoDB`,
    );
  }
  const region = await awsRegion(env);
  const repository = () => new DynamoDbRepository(createDocumentClient({ region }), { config, leads });
  return { endpoint: `https://dynamodb.${region}.amazonaws.com`, repository };
};

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

/** Runs one admin command; returns the exit code. */
export const runAdmin = async (argv: readonly string[], io: AdminIo): Promise<number> => {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout)(generalUsage());
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  let database: Awaited<ReturnType<typeof databaseFor>> | undefined;
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
      io.stdout(usageOf(name, command));
      return 0;
    }
    if (parsed.positionals.length !== command.positionals.length && !(command.optionalPositionals && parsed.positionals.length < command.positionals.length)) {
      const expected = command.positionals.length === 0 ? 'no arguments' : command.positionals.join(' ');
      throw new UsageError(`expected ${expected}, got ${parsed.positionals.length === 0 ? 'none' : parsed.positionals.map((p) => JSON.stringify(p)).join(' ')}`, name);
    }
    if (command.usesDatabase !== false) database = await databaseFor(io.env);
    let repository: DynamoDbRepository | undefined;
    await command.run(parsed as Parameters<Command['run']>[0], () => (repository ??= database!.repository()), io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      const where = error.command ?? name;
      io.stderr(`admin ${where}: ${error.message}\n`);
      io.stderr(error.command && commands[error.command] ? usageOf(error.command, commands[error.command]!) : generalUsage());
      return 2;
    }
    if (error instanceof InvalidKeyOptionError) {
      io.stderr(`admin ${name}: --${error.option}: ${error.message}\n`);
      io.stderr(usageOf(name, command!));
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
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: async () => {
      if (process.stdin.isTTY) process.stderr.write('Paste the page access token, then press Enter and Ctrl-D:\n');
      let text = '';
      for await (const chunk of process.stdin) text += chunk;
      return text;
    },
  });
  process.exitCode = code;
}
