/**
 * A source gone quiet (CONTRACT.md section 16): `sources` lists an account's channels with a lead in the
 * last 14 days, their pace and state, through the same listing as the admin API's `GET .../sources`.
 * The state is judged with the settings the watch keeps at each check (the stack's `silence*`, or
 * `npm start`'s SILENCE_*), never with the operator's shell (CONTRACT.md section 19): the same answer as
 * the admin API's. Before the watch's first check, the contract's defaults, and a line that says so.
 */
import { channelRows, type ChannelRow } from '../../shared/domain/channel-watch.ts';
import { AccountNotFoundError } from '../../shared/domain/errors.ts';
import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { defaultSilenceSettings, parseQuietHours } from '../../shared/domain/source-watch.ts';
import { CommandError, HELP, printJsonOr, required, table, type CommandModule } from './command.ts';

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
      const repo = repository();
      let settings = await repo.channels.settings();
      if (!settings) {
        io.stderr('admin sources: the quiet-source watch has not checked yet: states judged with the contract’s default settings\n');
        settings = { ...defaultSilenceSettings, quietHours: parseQuietHours(defaultSilenceSettings.quietHours) };
      }
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
