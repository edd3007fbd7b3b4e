/**
 * Google Ads lead forms (CONTRACT.md section 10): connect a form to an account's project and campaign
 * (its key printed once), rotate its key, list an account's forms (never a key or hash), disconnect a
 * form. Every rule is the forms' domain module's (shared/domain/google-forms.ts, which the admin API
 * calls too), whose refusals the CLI maps to its exit codes like the key lifecycle's: 2 for bad
 * arguments (a form id that is not one), 1 for what failed (an unknown account, project, campaign or
 * form, a form of another account).
 */
import {
  connectGoogleForm,
  listGoogleForms,
  removeGoogleForm,
  rotateGoogleFormKey,
  type GoogleFormAdminDependencies,
  type GoogleFormIssued,
  type GoogleFormSummary,
} from '../../shared/domain/google-forms.ts';
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { googleAdsSource } from '../../shared/google/source.ts';
import { HELP, printJsonOr, required, table, type AdminIo, type CommandModule } from './command.ts';

const formAdmin = (repository: DynamoDbRepository): GoogleFormAdminDependencies => ({ forms: repository.googleForms, accounts: repository.accounts });

/** Where the advertiser pastes the key, with the webhook URL, in Google Ads. */
const PASTE_HINT =
  `In Google Ads, open the lead form asset, "Lead delivery option", and enter the webhook URL {base_url}${googleAdsSource.route.path} ` +
  'and this key; then "Send test data" and find it in admin rejections (google_test_lead).';

/** A new key alone on standard output (for `$(...)`), or the form with it as one JSON object; the advice on standard error. */
const printIssued = (form: GoogleFormIssued, json: boolean | string | undefined, io: AdminIo, note: string) => {
  printJsonOr(io, json, form, () => `${form.key}\n`);
  io.stderr(`${note} The key is shown only this once: store it now. ${PASTE_HINT}\n`);
};

const formTable = (forms: readonly GoogleFormSummary[]): string => {
  if (forms.length === 0) return 'No Google Ads lead forms connected.\n';
  const columns: [string, (form: GoogleFormSummary) => unknown][] = [
    ['form_id', (f) => f.form_id],
    ['project', (f) => f.project_id],
    ['campaign', (f) => f.campaign_id],
    ['connected_at', (f) => f.connected_at],
  ];
  return table(columns, forms) + `${forms.length} form(s)\n`;
};

const googleForms: CommandModule = {
  'add-google-form': {
    usage: 'add-google-form --account ID --form-id FORM --project ID --campaign ID [--json]',
    summary:
      "Connect a Google Ads lead form to an account's project and campaign and print its new webhook key, once (only a hash is stored). " +
      'A form the account has already moves to the project and campaign given and keeps its key (none printed).',
    options: { ...HELP, account: { type: 'string' }, 'form-id': { type: 'string' }, project: { type: 'string' }, campaign: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const command = 'add-google-form';
      const input = {
        accountId: required(values.account, '--account', command).trim(),
        formId: required(values['form-id'], '--form-id', command).trim(),
        projectId: required(values.project, '--project', command).trim(),
        campaignId: required(values.campaign, '--campaign', command).trim(),
      };
      const { created, form } = await connectGoogleForm(formAdmin(repository()), input);
      const where = `project ${form.project_id}, campaign ${form.campaign_id}`;
      if (created) return printIssued(form, values.json, io, `Google Ads form ${form.form_id} is connected to account ${form.account_id} (${where}).`);
      printJsonOr(io, values.json, form, () => `Google Ads form ${form.form_id} of account ${form.account_id} now sends its leads to ${where}; its key is unchanged.\n`);
    },
  },
  'rotate-google-form-key': {
    usage: 'rotate-google-form-key --form-id FORM [--json]',
    summary:
      "Give a connected form a new webhook key, printed once; the old key answers 401 at once. Paste the new one into the form's webhook settings.",
    options: { ...HELP, 'form-id': { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const form = await rotateGoogleFormKey(formAdmin(repository()), required(values['form-id'], '--form-id', 'rotate-google-form-key').trim());
      printIssued(form, values.json, io, `Google Ads form ${form.form_id} of account ${form.account_id} has a new key; the old one answers 401 from now on.`);
    },
  },
  'google-forms': {
    usage: 'google-forms --account ID [--json]',
    summary: "List an account's connected Google Ads lead forms (form id, project, campaign, connected at): never a key or its hash.",
    options: { ...HELP, account: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const forms = await listGoogleForms(formAdmin(repository()), required(values.account, '--account', 'google-forms').trim());
      printJsonOr(io, values.json, forms, () => formTable(forms));
    },
  },
  'remove-google-form': {
    usage: 'remove-google-form --form-id FORM',
    summary: 'Disconnect a Google Ads lead form: its deliveries answer 401 Invalid google_key at once; its leads are kept.',
    options: { ...HELP, 'form-id': { type: 'string' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const formId = required(values['form-id'], '--form-id', 'remove-google-form').trim();
      await removeGoogleForm(formAdmin(repository()), formId);
      io.stdout(`Google Ads form ${formId} is disconnected.\n`);
    },
  },
};

export default googleForms;
