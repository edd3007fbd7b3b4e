/**
 * Call numbers (CONTRACT.md section 13): connect a project's phone number to an account's project and
 * campaign, list an account's numbers, disconnect one. Every rule is the numbers' domain module's
 * (shared/calls/numbers.ts, which the admin API and the seed call too), whose refusals the CLI
 * maps to its exit codes like the key lifecycle's: 2 for bad arguments (a number of fewer than 10
 * digits), 1 for what failed (an unknown account, project, campaign or number).
 */
import { CALL_NUMBER_CONNECTION, connectCallNumber, listCallNumbers, removeCallNumber, type CallNumberAdminDependencies, type CallNumberSummary } from '../../shared/calls/numbers.ts';
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { callsSource } from '../../shared/calls/source.ts';
import { HELP, printJsonOr, required, table, type CommandModule } from './command.ts';

const numberAdmin = (repository: DynamoDbRepository): CallNumberAdminDependencies => ({ numbers: repository.connections(CALL_NUMBER_CONNECTION), accounts: repository.accounts });

/** Where the number's calls are sent from: the provider's settings, with a key limited to calls. */
const WEBHOOK_HINT =
  `Point the provider at {base_url}${callsSource.route.path.replace('{provider}', 'exotel|knowlarity|generic')}?key=KEY ` +
  '(a key made with create-key --endpoints calls; docs/sources/call.md says where each provider takes it).';

const numberTable = (numbers: readonly CallNumberSummary[]): string => {
  if (numbers.length === 0) return 'No call numbers connected.\n';
  const columns: [string, (n: CallNumberSummary) => unknown][] = [
    ['number', (n) => n.number],
    ['project', (n) => n.project_id],
    ['campaign', (n) => n.campaign_id],
    ['connected_at', (n) => n.connected_at],
  ];
  return table(columns, numbers) + `${numbers.length} number(s)\n`;
};

const callNumbers: CommandModule = {
  'add-call-number': {
    usage: 'add-call-number --account ID --number N --project ID --campaign ID [--json]',
    summary:
      "Connect a project's phone number (its last 10 digits) to an account's project and campaign: calls to it become leads there. " +
      'A number the account has already moves to the project and campaign given.',
    options: { ...HELP, account: { type: 'string' }, number: { type: 'string' }, project: { type: 'string' }, campaign: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const command = 'add-call-number';
      const input = {
        accountId: required(values.account, '--account', command).trim(),
        number: required(values.number, '--number', command).trim(),
        projectId: required(values.project, '--project', command).trim(),
        campaignId: required(values.campaign, '--campaign', command).trim(),
      };
      const { created, number } = await connectCallNumber(numberAdmin(repository()), input);
      const where = `project ${number.project_id}, campaign ${number.campaign_id}`;
      printJsonOr(io, values.json, number, () =>
        created ? `Call number ${number.number} is connected to account ${input.accountId} (${where}).\n` : `Calls to ${number.number} now become leads of ${where}.\n`,
      );
      if (created) io.stderr(`${WEBHOOK_HINT}\n`);
    },
  },
  'call-numbers': {
    usage: 'call-numbers --account ID [--json]',
    summary: "List an account's connected call numbers (number, project, campaign, connected at).",
    options: { ...HELP, account: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const numbers = await listCallNumbers(numberAdmin(repository()), required(values.account, '--account', 'call-numbers').trim());
      printJsonOr(io, values.json, numbers, () => numberTable(numbers));
    },
  },
  'remove-call-number': {
    usage: 'remove-call-number --account ID --number N',
    summary: 'Disconnect a call number: its calls are then kept as call_number_not_connected rejections, and a seed never connects it again; its leads are kept.',
    options: { ...HELP, account: { type: 'string' }, number: { type: 'string' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const command = 'remove-call-number';
      const accountId = required(values.account, '--account', command).trim();
      const number = required(values.number, '--number', command).trim();
      await removeCallNumber(numberAdmin(repository()), accountId, number);
      io.stdout(`Call number ${number} of account ${accountId} is disconnected.\n`);
    },
  },
};

export default callNumbers;
