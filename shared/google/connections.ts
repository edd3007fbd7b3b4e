/**
 * Google Ads lead forms as a kind of connection (CONTRACT.md section 10; shared/sources/connection-kind.ts):
 * one form is one account's, with a key of its own that Google sends back in every delivery
 * (`google_key`), stored only as its hash and shown once. The one connection lifecycle does the rest.
 */
import { connectionMessages, platformWideRefusals, type ConnectionLifecycleDeclaration, type ConnectionToolWords } from '../sources/connection-kind.ts';
import { connectionAdminRoutes } from '../sources/connection-routes.ts';
import { googleFormConnectionKey } from './wire-names.ts';

export const googleFormConnections = {
  ...googleFormConnectionKey,
  // 192 random bits, in characters Google's key field takes.
  key: { prefix: 'gk_', randomBytes: 24 },
  // A form is one account's: a connect that lost its race found it taken.
  connect: { attempts: 2, exhausted: 'another-account' },
  connectAnswer: 'issued',
  words: {
    pathSegment: 'google-forms',
    pathParameter: 'formId',
    invalidIdProblem: 'must be the Google Ads form id, digits only',
    idMember: 'form_id',
    operations: { connect: 'connectGoogleForm', list: 'listGoogleForms', remove: 'removeGoogleForm', rotate: 'rotateGoogleFormKey' },
    .../* @__PURE__ */ platformWideRefusals(googleFormConnectionKey.kind, 'Form'),
    messages: {
      invalidIdFlag: 'form-id',
      invalidId: 'the form id must be the Google Ads form id, digits only, not {value}',
      .../* @__PURE__ */ connectionMessages('Form'),
      campaignNotFound: 'campaign {value} is not an active campaign of that project',
    },
  },
} as const satisfies ConnectionLifecycleDeclaration;

/** The words of the tools (the admin CLI, the seed, OpenAPI), apart: the admin function's bundle carries none of them. */
export const googleFormConnectionWords = {
  cli: {
    module: 'googleForms',
    idFlag: 'form-id',
    idPlaceholder: 'FORM',
    connect: {
      verb: 'add-google-form',
      summary:
        "Connect a Google Ads lead form to an account's project and campaign and print its new webhook key, once (only a hash is stored). " +
        'A form the account has already moves to the project and campaign given and keeps its key (none printed).',
      created: 'Google Ads form {id} is connected to account {account} ({where}).',
      moved: 'Google Ads form {id} of account {account} now sends its leads to {where}; its key is unchanged.',
      hint:
        'In Google Ads, open the lead form asset, "Lead delivery option", and enter the webhook URL {base_url}{route} ' +
        'and this key; then "Send test data" and find it in admin rejections (google_test_lead).',
    },
    list: {
      verb: 'google-forms',
      summary: "List an account's connected Google Ads lead forms (form id, project, campaign, connected at): never a key or its hash.",
      empty: 'No Google Ads lead forms connected.',
      counted: '{count} form(s)',
    },
    remove: {
      verb: 'remove-google-form',
      summary: 'Disconnect a Google Ads lead form: its deliveries answer 401 Invalid google_key at once; its leads are kept.',
      byAccount: false,
      removed: 'Google Ads form {id} is disconnected.',
    },
    rotate: {
      verb: 'rotate-google-form-key',
      summary: "Give a connected form a new webhook key, printed once; the old key answers 401 at once. Paste the new one into the form's webhook settings.",
      rotated: 'Google Ads form {id} of account {account} has a new key; the old one answers 401 from now on.',
    },
    keyAdvice: '{note} The key is shown only this once: store it now. {hint}',
  },
  seed: {
    member: 'googleForms',
    idField: 'formId',
    keyField: 'key',
    invalidId: 'must be a Google Ads form id (digits, as a string)',
    repeated: 'Google form {value} appears more than once (a form belongs to one account)',
  },
  openapi: {
    bodySchema: 'GoogleFormBody',
    connectedSchema: 'GoogleForm',
    listedSchema: 'GoogleFormSummary',
    schemas: {
      GoogleForm: {
        type: 'object',
        description: 'A Google Ads lead form and where its leads go. `key` only when a new key was made: shown this once, only its SHA-256 hash is stored.',
        required: ['form_id', 'account_id', 'project_id', 'campaign_id'],
        properties: {
          form_id: { type: 'string', pattern: '^\\d+$', description: 'The Google Ads form id (a 64-bit integer), as its digits.' },
          account_id: { type: 'string' },
          project_id: { type: 'string' },
          campaign_id: { type: 'string' },
          key: { type: 'string', description: 'The webhook key to paste into the form’s webhook settings in Google Ads.' },
        },
      },
      GoogleFormSummary: {
        type: 'object',
        description: 'Never a key or a hash.',
        required: ['form_id', 'project_id', 'campaign_id', 'connected_at'],
        properties: { form_id: { type: 'string' }, project_id: { type: 'string' }, campaign_id: { type: 'string' }, connected_at: { type: 'string' } },
      },
    },
    connect: {
      summary: 'Connect a Google Ads lead form to a project and campaign (its key shown once)',
      description:
        'A new form: 201 with a new key, to paste with the webhook URL into the form’s webhook settings in Google Ads. A form the account has already: 200, moved to this project and campaign, keeping its key (none shown). A form of another account: 409.',
      created: 'Connected, with its new key',
      changed: 'Reconnected: the key is unchanged and not shown',
    },
    list: {
      summary: 'The account’s Google Ads lead forms (never a key or a hash)',
      description: 'One entry per connected form, with where its leads go and when it was connected.',
      answer: 'The forms',
    },
    remove: {
      summary: 'Disconnect a Google Ads lead form: its deliveries answer 401',
      description: 'The form’s leads are kept. Google’s deliveries for it answer 401 `Invalid google_key` at once, even in functions that cached it.',
      answer: 'Disconnected',
    },
    rotate: {
      summary: 'A new key for a Google Ads lead form (shown once); the old one stops working',
      description: 'Paste the new key into the form’s webhook settings in Google Ads. The old key answers 401 `Invalid google_key` at once, even in functions that cached it.',
      answer: 'The form with its new key',
    },
  },
} as const satisfies ConnectionToolWords;

/** Its admin routes (its descriptor's `admin.routes`, served by admin.ts). */
export const googleFormAdminRoutes = connectionAdminRoutes(googleFormConnections);
