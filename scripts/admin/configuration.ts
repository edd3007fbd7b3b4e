/**
 * An account's configuration (CONTRACT.md sections 5 and 6): seed files, and the duplicate setting,
 * through the same AccountAdmin the admin API uses.
 */
import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { AccountNotFoundError, InvalidConfigurationError } from '../../shared/domain/errors.ts';
import { LEAD_RETENTION_MAX_DAYS, LEAD_RETENTION_MIN_DAYS, REJECTION_RETENTION_MAX_DAYS, REJECTION_RETENTION_MIN_DAYS, type RetentionChange } from '../../shared/domain/retention.ts';
import { duplicateSettings, type DuplicateSetting } from '../../shared/domain/lead.ts';
import { applySeed, readSeedFile } from '../local/seed.ts';
import { backfillLeadAges } from '../../shared/dynamodb/lead-age-backfill.ts';
import { CommandError, HELP, optional, printJsonOr, required, UsageError, type CommandModule } from './command.ts';

/** A number of days as typed: whole digits only (the domain checks the range); `none` for leads kept until erased. */
const days = (value: string | undefined, option: string, allowNone: boolean): number | null | undefined => {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (allowNone && text === 'none') return null;
  if (!/^\d+$/.test(text)) throw new UsageError(`${option} must be a whole number of days${allowNone ? ' or none' : ''}, not ${JSON.stringify(value)}`, 'set-retention');
  return Number(text);
};

const shownDays = (value: number | null) => (value === null ? 'kept until erased' : `${value} day(s)`);

const configuration: CommandModule = {
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
  'set-retention': {
    usage: 'set-retention --account ID [--leads DAYS|none] [--rejections DAYS] [--json]',
    summary:
      `How long an account keeps its leads (--leads, ${LEAD_RETENTION_MIN_DAYS} to ${LEAD_RETENTION_MAX_DAYS} days, or none: until erased) and its rejection ` +
      `records (--rejections, ${REJECTION_RETENTION_MIN_DAYS} to ${REJECTION_RETENTION_MAX_DAYS} days); an option left out keeps its value. Aged-out leads are erased ` +
      'by the daily retention sweep (the CRM hears Lead Erased, reason retention); shortening applies to leads already stored.',
    options: { ...HELP, account: { type: 'string' }, leads: { type: 'string' }, rejections: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'set-retention');
      const leadDays = days(optional(values.leads), '--leads', true);
      const rejectionDays = days(optional(values.rejections), '--rejections', false);
      const change: RetentionChange = { ...(leadDays !== undefined && { leadDays }), ...(rejectionDays !== undefined && { rejectionDays: rejectionDays! }) };
      let retention;
      try {
        retention = await new AccountAdmin(repository().accounts).setRetention(accountId, change);
      } catch (error) {
        if (error instanceof AccountNotFoundError) throw new CommandError(`account ${JSON.stringify(accountId)} does not exist`);
        if (error instanceof InvalidConfigurationError) {
          throw new UsageError(error.message.replace(/^retention\.leadDays/, '--leads').replace(/^retention\.rejectionDays/, '--rejections'), 'set-retention');
        }
        throw error;
      }
      printJsonOr(io, values.json, { account_id: accountId, retention }, () =>
        `Retention of account ${accountId}: leads ${shownDays(retention.leadDays)}, rejection records ${shownDays(retention.rejectionDays)}.\n`,
      );
    },
  },  'backfill-lead-ages': {
    usage: 'backfill-lead-ages [--json]',
    summary:
      'Once, after upgrading a stack that already holds leads: give each lead stored before the retention sweep existed its place in the ' +
      'by_age index, so retention finds it (a Scan of the Leads table; safe to run again and beside traffic).',
    options: { ...HELP, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const repo = repository();
      const done = await backfillLeadAges(repo.db, repo.tables.leads);
      printJsonOr(io, values.json, done, () => `Indexed ${done.indexed} of ${done.found} lead(s) stored before the by_age index; run it again until it finds none.\n`);
    },
  },
};

export default configuration;
