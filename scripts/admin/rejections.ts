/**
 * An account's rejection log (CONTRACT.md sections 7 and 11): one page of it, newest first, and the
 * release of a quarantined submission into a lead, through the same domain operations as the admin
 * API (shared/domain/quarantine.ts).
 */
import { InvalidConfigurationError, LeadIntakeError } from '../../shared/domain/errors.ts';
import { newLeadId } from '../../shared/domain/lead-id.ts';
import type { StoredRejection } from '../../shared/domain/ports/rejections.ts';
import { rejectionPage, releaseQuarantined } from '../../shared/domain/quarantine.ts';
import { audited } from '../../shared/domain/audit.ts';
import { auditOf, cliCaller } from './audit.ts';
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { platformIdSources } from '../../shared/sources/registry.ts';
import { enquiryRecordId } from '../../shared/pulled/wire-names.ts';
import { CommandError, HELP, optional, printJsonOr, required, table, UsageError, type CommandModule } from './command.ts';

/** `mobile_number: must be a 10-digit ...; email: must be ...` or `projectID: PRJ-9`: one line per rejection. */
const compactFields = (fields: Readonly<Record<string, unknown>>): string =>
  Object.entries(fields ?? {})
    .map(([name, value]) => {
      const text = Array.isArray(value) ? value.join(' ') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
      return `${name}: ${text.startsWith(`${name} `) ? text.slice(name.length + 1) : text}`;
    })
    .join('; ');

/** What the table shows of a record beyond its fields: a suppressed counter's counts, a release. */
const details = (r: StoredRejection): string => {
  if (r.reason === 'suppressed') return `${r.count} not stored (${Object.entries(r.reasons ?? {}).map(([reason, n]) => `${reason}: ${n}`).join(', ')})`;
  const fields = compactFields(r.fields) + (r.omittedFields ? `; and ${r.omittedFields} more` : '');
  return r.lead_id ? `${fields}; released as lead ${r.lead_id}` : fields;
};

/**
 * The endpoint, and for a platform's delivery its own id as the platform shows it, so the lead is found
 * there (`meta leadgen 1200...` in Meta's lead center, `call exotel c-1` in the provider's call log):
 * the first source of the registry whose id the record carries, with its qualifiers and label.
 */
const endpointOf = (r: StoredRejection): string => {
  for (const platformId of [...platformIdSources.map((source) => source.platformId), enquiryRecordId]) {
    const id = r[platformId.field];
    if (typeof id !== 'string' || id === '') continue;
    const qualifiers = (platformId.qualifiedBy ?? []).map((name) => String(r[name]));
    return [r.endpoint, ...qualifiers, ...(platformId.label === undefined ? [] : [platformId.label]), id].join(' ');
  }
  return r.endpoint;
};

/** The rejections as a table for a terminal; every field of each stays in --json. */
export const rejectionTable = (found: readonly StoredRejection[]): string => {
  if (found.length === 0) return 'No rejected submissions.\n';
  const columns: [string, (rejection: StoredRejection) => unknown][] = [
    ['id', (r) => r.id],
    ['time', (r) => r.created_at],
    ['endpoint', endpointOf],
    ['reason', (r) => r.reason],
    ['message', (r) => r.message],
    ['mobile', (r) => r.mobile],
    ['fields', details],
  ];
  return table(columns, found) + `${found.length} rejected submission(s)\n`;
};

/** The domain's dependencies for the log and its releases. */
const quarantine = (repository: DynamoDbRepository) => ({
  rejections: repository.rejections,
  accounts: repository.accounts,
  leads: repository.leads,
  newLeadId,
  now: () => new Date(),
});

/** A word as a POSIX shell reads it: quoted only when it has to be. */
const shellWord = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

/**
 * The command that prints the next page: the one just run, with the same page size, reason and output
 * form (a reader paging through `--json | jq` gets JSON again), `-s` so npm's header stays out of a pipe,
 * and the cursor last.
 */
export const nextPageCommand = (accountId: string, options: { readonly limit?: string; readonly reason?: string; readonly json: boolean }, cursor: string): string =>
  [
    'npm run -s admin -- rejections --account',
    shellWord(accountId),
    ...(options.limit !== undefined ? ['--limit', shellWord(options.limit)] : []),
    ...(options.reason !== undefined ? ['--reason', shellWord(options.reason)] : []),
    ...(options.json ? ['--json'] : []),
    '--cursor',
    shellWord(cursor),
  ].join(' ');

/** The admin API's 400 for a bad limit, reason or cursor is the CLI's exit 2. */
const asUsage = async <T>(command: string, run: () => Promise<T>): Promise<T> => {
  try {
    return await run();
  } catch (error) {
    if (error instanceof InvalidConfigurationError) throw new UsageError(error.message, command);
    throw error;
  }
};

const rejections: CommandModule = {
  rejections: {
    usage: 'rejections --account ID [--limit N] [--reason R] [--cursor C] [--json]',
    summary:
      "One page of an account's rejected submissions of the last 30 days, newest first (at most N, default 50, 1 to 200), optionally of one reason: a table, " +
      'or a JSON array with --json. When there are more, the cursor of the next page goes to standard error; pass it as --cursor.',
    options: { ...HELP, account: { type: 'string' }, limit: { type: 'string' }, reason: { type: 'string' }, cursor: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'rejections');
      const reason = optional(values.reason);
      const caller = await cliCaller(io);
      const page = await asUsage('rejections', async () => {
        try {
          const repo = repository();
          const read = () =>
            rejectionPage(quarantine(repo), accountId, {
              ...(values.limit !== undefined && { limit: values.limit as string }),
              ...(reason !== undefined && { reason }),
              ...(values.cursor !== undefined && { cursor: values.cursor as string }),
            });
          return await audited(auditOf(repo, io.env), caller, accountId, { operation: 'rejections_list', count: (found) => found.items.length }, read);
        } catch (error) {
          if (error instanceof LeadIntakeError && error.reason === 'account_not_found') throw new CommandError(`account ${JSON.stringify(accountId)} does not exist`);
          throw error;
        }
      });
      printJsonOr(io, values.json, page.items, () => rejectionTable(page.items));
      if (page.next) io.stderr(`More: ${nextPageCommand(accountId, { limit: values.limit as string | undefined, reason, json: values.json === true }, page.next)}\n`);
    },
  },
  release: {
    usage: 'release --account ID --rejection-id RID [--json]',
    summary:
      'Turn a quarantined submission (honeypot, captcha_failed, captcha_unavailable) into a lead, through the duplicate rules as they stand now, once. ' +
      'Prints the lead (exit 0), or why it was not released (exit 1).',
    options: { ...HELP, account: { type: 'string' }, 'rejection-id': { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'release');
      const rejectionId = required(values['rejection-id'], '--rejection-id', 'release');
      const caller = await cliCaller(io);
      let lead;
      try {
        const repo = repository();
        const release = () => releaseQuarantined(quarantine(repo), accountId, rejectionId);
        ({ lead } = await asUsage('release', () => audited(auditOf(repo, io.env), caller, accountId, { operation: 'release', count: () => 1 }, release)));
      } catch (error) {
        // Not released: the message the admin API answers (Already released, Lead already exists, ...).
        if (error instanceof LeadIntakeError && error.status < 500) {
          if (values.json === true) io.stdout(`${JSON.stringify({ status: false, message: error.message }, null, 2)}\n`);
          throw new CommandError(error.message);
        }
        throw error;
      }
      if (values.json === true) io.stdout(`${JSON.stringify(lead, null, 2)}\n`);
      else io.stdout(`Released ${rejectionId} as lead ${lead.id} (project ${lead.projectID}${lead.is_repeated ? `, a repeat${lead.parent_lead_id ? ` of ${lead.parent_lead_id}` : ''}` : ''}).\n`);
    },
  },
};

export default rejections;
