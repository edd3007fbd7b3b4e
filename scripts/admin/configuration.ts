/**
 * An account's configuration (CONTRACT.md sections 5 and 6): seed files, and the duplicate setting,
 * through the same AccountAdmin the admin API uses.
 */
import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { AccountNotFoundError } from '../../shared/domain/errors.ts';
import { duplicateSettings, type DuplicateSetting } from '../../shared/domain/lead.ts';
import { applySeed, readSeedFile } from '../local/seed.ts';
import { CommandError, HELP, required, UsageError, type CommandModule } from './command.ts';

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
};

export default configuration;
