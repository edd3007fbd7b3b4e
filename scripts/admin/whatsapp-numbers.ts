/**
 * WhatsApp numbers (CONTRACT.md section 15): connect a WhatsApp Business number, by Meta's
 * phone_number_id, to an account's project and campaign, list an account's numbers, disconnect one.
 * Every rule is the numbers' domain module's (shared/whatsapp/numbers.ts, which the admin API and the
 * seed call too), whose refusals the CLI maps to its exit codes like the key lifecycle's: 2 for bad
 * arguments (an id that is not 1 to 200 digits), 1 for what failed (an unknown account, project,
 * campaign or number, a number of another account).
 */
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import {
  connectWhatsAppNumber,
  listWhatsAppNumbers,
  removeWhatsAppNumber,
  WHATSAPP_NUMBER_CONNECTION,
  type WhatsAppNumberAdminDependencies,
  type WhatsAppNumberSummary,
} from '../../shared/whatsapp/numbers.ts';
import { whatsappSource } from '../../shared/whatsapp/source.ts';
import { HELP, printJsonOr, required, table, type CommandModule } from './command.ts';

const numberAdmin = (repository: DynamoDbRepository): WhatsAppNumberAdminDependencies => ({ numbers: repository.connections(WHATSAPP_NUMBER_CONNECTION), accounts: repository.accounts });

/** Where the number's messages come from: the Meta app's webhook, subscribed to the WhatsApp Business Account's `messages`. */
const WEBHOOK_HINT =
  `In the Meta app, subscribe the WhatsApp Business Account's "messages" field to {base_url}${whatsappSource.route.path} ` +
  '(the same callback URL, verify token and app secret as Meta Lead Ads; docs/sources/whatsapp.md).';

const numberTable = (numbers: readonly WhatsAppNumberSummary[]): string => {
  if (numbers.length === 0) return 'No WhatsApp numbers connected.\n';
  const columns: [string, (n: WhatsAppNumberSummary) => unknown][] = [
    ['phone_number_id', (n) => n.phone_number_id],
    ['project', (n) => n.project_id],
    ['campaign', (n) => n.campaign_id],
    ['connected_at', (n) => n.connected_at],
  ];
  return table(columns, numbers) + `${numbers.length} number(s)\n`;
};

const whatsappNumbers: CommandModule = {
  'add-whatsapp-number': {
    usage: 'add-whatsapp-number --account ID --phone-number-id PNID --project ID --campaign ID [--json]',
    summary:
      "Connect a WhatsApp Business number (Meta's phone number id, in WhatsApp Manager > Phone numbers or the app's API Setup) to an account's project and campaign: " +
      'the first message of each chat with it becomes a lead there. A number the account has already moves to the project and campaign given; another account’s is refused.',
    options: { ...HELP, account: { type: 'string' }, 'phone-number-id': { type: 'string' }, project: { type: 'string' }, campaign: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const command = 'add-whatsapp-number';
      const input = {
        accountId: required(values.account, '--account', command).trim(),
        phoneNumberId: required(values['phone-number-id'], '--phone-number-id', command).trim(),
        projectId: required(values.project, '--project', command).trim(),
        campaignId: required(values.campaign, '--campaign', command).trim(),
      };
      const { created, number } = await connectWhatsAppNumber(numberAdmin(repository()), input);
      const where = `project ${number.project_id}, campaign ${number.campaign_id}`;
      printJsonOr(io, values.json, number, () =>
        created
          ? `WhatsApp number ${number.phone_number_id} is connected to account ${input.accountId} (${where}).\n`
          : `Chats with WhatsApp number ${number.phone_number_id} now become leads of ${where}.\n`,
      );
      if (created) io.stderr(`${WEBHOOK_HINT}\n`);
    },
  },
  'whatsapp-numbers': {
    usage: 'whatsapp-numbers --account ID [--json]',
    summary: "List an account's connected WhatsApp numbers (phone number id, project, campaign, connected at).",
    options: { ...HELP, account: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const numbers = await listWhatsAppNumbers(numberAdmin(repository()), required(values.account, '--account', 'whatsapp-numbers').trim());
      printJsonOr(io, values.json, numbers, () => numberTable(numbers));
    },
  },
  'remove-whatsapp-number': {
    usage: 'remove-whatsapp-number --account ID --phone-number-id PNID',
    summary: 'Disconnect a WhatsApp number: its messages are then ignored (logged by the number’s id, counted), and a seed never connects it again; its leads are kept.',
    options: { ...HELP, account: { type: 'string' }, 'phone-number-id': { type: 'string' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const command = 'remove-whatsapp-number';
      const accountId = required(values.account, '--account', command).trim();
      const phoneNumberId = required(values['phone-number-id'], '--phone-number-id', command).trim();
      await removeWhatsAppNumber(numberAdmin(repository()), accountId, phoneNumberId);
      io.stdout(`WhatsApp number ${phoneNumberId} of account ${accountId} is disconnected.\n`);
    },
  },
};

export default whatsappNumbers;
