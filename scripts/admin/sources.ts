/**
 * A source gone quiet (CONTRACT.md section 16): `sources` lists an account's channels with a lead in the
 * last 14 days, their pace and state, through the same listing as the admin API's `GET .../sources`.
 * The state is judged with SILENCE_MIN_LEADS, SILENCE_MIN_MINUTES and SILENCE_QUIET_HOURS from the
 * environment (the contract's defaults when unset: set them as the stack or `npm start` has them).
 */
import { channelRows, type ChannelRow } from '../../shared/domain/channel-watch.ts';
import { AccountNotFoundError } from '../../shared/domain/errors.ts';
import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { silenceSettingsFromEnvironment } from '../../shared/source-watch-settings.ts';
import { CommandError, HELP, printJsonOr, required, UsageError, table, type CommandModule } from './command.ts';

export const channelTable = (rows: readonly ChannelRow[]): string => {
  if (rows.length === 0) return 'No leads in the last 14 days.\n';
  const columns: [string, (row: ChannelRow) => unknown][] = [
    ['source', (r) => r.source],
    ['sub_source', (r) => r.sub_source],
    ['connection_id', (r) => r.connection_id],
    ['leads_14d', (r) => r.leads_14d],
    ['last_lead_at', (r) => r.last_lead_at],
    ['usual_gap_minutes', (r) => r.usual_gap_minutes],
    ['state', (r) => r.state],
  ];
  return table(columns, rows) + `${rows.length} channel(s)\n`;
};

const sources: CommandModule = {
  sources: {
    usage: 'sources --account ID [--json]',
    summary:
      'One row per channel (source, sub source, connection) with a lead in the last 14 days, most recent first: leads_14d, last_lead_at, usual_gap_minutes, state (watched, silent, too_few). --json prints the array the admin API answers.',
    options: { ...HELP, account: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'sources');
      let settings;
      try {
        settings = silenceSettingsFromEnvironment(io.env);
      } catch (error) {
        throw new UsageError((error as Error).message, 'sources');
      }
      const repo = repository();
      const account = await new AccountAdmin(repo.accounts).getAccount(accountId).catch((error: unknown) => {
        if (error instanceof AccountNotFoundError) throw new CommandError(`account ${JSON.stringify(accountId)} does not exist`);
        throw error;
      });
      // The account's own quiet hours win over SILENCE_QUIET_HOURS, as in the check.
      const rows = await channelRows({ store: repo.channels, settings, now: () => new Date() }, accountId, account.silenceQuietHours);
      printJsonOr(io, values.json, rows, () => channelTable(rows));
    },
  },
};

export default sources;
