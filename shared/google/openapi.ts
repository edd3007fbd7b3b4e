/**
 * The Google Ads lead form webhook in the OpenAPI document (CONTRACT.md section 10). Messages come
 * from the errors and the handler themselves.
 */
import {
  BodyNotAnObjectError,
  MalformedJsonBodyError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnknownCampaignError,
  UnknownProjectError,
  UnsupportedContentTypeError,
} from '../domain/errors.ts';
import { GoogleFormConflictError, InvalidGoogleKeyError, UnknownGoogleFormError } from './errors.ts';
import { LEAD_RECEIVED } from './webhook-handler.ts';
import { accountMissing, connectionTargetBody, message, ref, success, type AdminOperationDoc } from '../sources/admin-openapi.ts';
import { acknowledgement, failure, requestId, type JsonObject } from '../sources/webhook-openapi.ts';

export const GOOGLE_ADS_TAG: JsonObject = {
  name: 'Google Ads lead forms',
  description:
    'Google Ads lead form assets straight in: the webhook Google calls with each lead, carrying the form’s own key. Each lead is created in the request (`source: "google_ads"`, `sub_source: "lead_form"`, with `google_lead_id` and Google’s ids); what cannot become a lead is in `admin rejections` (endpoint `google_ads`). Forms are connected with `admin add-google-form` or `PUT /admin/v1/accounts/{accountId}/google-forms/{formId}`.',
};

const int64 = (description: string): JsonObject => ({ type: 'integer', minimum: 0, description: `${description} A 64-bit integer: read as its exact digits, stored as a string.` });

const deliveryExample: JsonObject = {
  lead_id: 'TeSter-123-ABCDEFGHIJKLMNOPQRSTUVWXYZ-abcdefghijklmnopqrstuvwxyz-0123456789-AaBbCcDdEe',
  user_column_data: [
    { column_name: 'Full Name', string_value: 'Priya Nair', column_id: 'FULL_NAME' },
    { column_name: 'User Phone', string_value: '+919810000031', column_id: 'PHONE_NUMBER' },
    { column_name: 'City', string_value: 'Bengaluru', column_id: 'CITY' },
    { column_name: 'What is your budget?', string_value: '80 lakh to 1 crore', column_id: 'what_is_your_budget' },
  ],
  api_version: '1.0',
  form_id: 40000000000,
  campaign_id: 20000000000,
  google_key: 'the-form-key',
  is_test: false,
  gcl_id: 'TeSter-123-gclid',
  adgroup_id: 20000000000,
  creative_id: 22222222222,
};

export const googleAdsWebhookOperations = (): JsonObject => ({
  post: {
    tags: [GOOGLE_ADS_TAG.name as string],
    operationId: 'receiveGoogleAdsLead',
    summary: 'Google Ads lead form deliveries',
    description:
      'Checked in this order: size (413), Content-Type (415), JSON (400), then the form’s key (401), compared in constant time with the hash stored for `form_id`; an unknown form and a wrong key answer alike. ' +
      'With the right key the answer is 200 whatever became of the lead: stored, a redelivery of a `lead_id` already stored (15 days at least), or recorded in the account’s rejections (a test lead, a duplicate under `ignore`, a validation failure), since no retry by Google could fix those. ' +
      'Mapping: `name` from FULL_NAME (else FIRST_NAME and LAST_NAME), `mobile_number` from PHONE_NUMBER, `email` from EMAIL (else WORK_EMAIL), `location` from CITY; every other column a line of `notes`, in the order sent.',
    security: [],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['lead_id', 'form_id', 'google_key', 'user_column_data'],
            properties: {
              lead_id: { type: 'string', description: 'Unique across all forms: the idempotency key of the lead.' },
              user_column_data: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { column_id: { type: 'string' }, column_name: { type: 'string' }, string_value: { type: 'string' } },
                },
              },
              api_version: { type: 'string' },
              form_id: int64('The lead form, which an account must have connected.'),
              campaign_id: int64('The Google Ads campaign.'),
              adgroup_id: int64('The ad group.'),
              creative_id: int64('The ad.'),
              gcl_id: { type: 'string', description: 'Stored as the lead’s `gclid`.' },
              google_key: { type: 'string', description: 'The form’s key, as entered in the form’s webhook settings in Google Ads. Never stored or logged.' },
              is_test: { type: 'boolean', description: 'Google’s “send test data”: recorded as a `google_test_lead` rejection, no lead stored.' },
            },
          },
          example: deliveryExample,
        },
      },
    },
    responses: {
      '200': acknowledgement(LEAD_RECEIVED, 'The key is right: the lead is stored, was stored already, or is recorded in the account’s rejections.'),
      '400': failure(new MalformedJsonBodyError().message, `Not JSON (or \`${new BodyNotAnObjectError().message}\`): nothing stored.`),
      '401': failure(new InvalidGoogleKeyError().message, '`form_id` missing or not connected, or `google_key` missing or wrong: nothing stored.'),
      '413': failure(new PayloadTooLargeError().message, 'Body over 64 KiB: nothing stored.'),
      '415': failure(new UnsupportedContentTypeError().message, 'A Content-Type that is not JSON: nothing stored.'),
      '503': {
        ...failure(new ServiceUnavailableError(1).message, 'The database is unavailable: nothing stored; Google retries, and the retry stores the lead once.'),
        headers: { 'x-request-id': requestId, 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
      },
    },
  },
});

/** What the OpenAPI builder reads of a source's module (its descriptor's `openapi`). */
export { GOOGLE_ADS_TAG as openApiTag, googleAdsWebhookOperations as openApiOperations };

// ---- Its admin routes (its descriptor's `admin`), in the admin API's part (scripts/openapi/admin.ts) ----

const googleFormMissing = message(UnknownGoogleFormError);

/** The schemas its admin operations name, among the document's components. */
export const openApiAdminSchemas: JsonObject = {
  GoogleFormBody: connectionTargetBody(),
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
};

/** Its admin operations, by name: what each takes and answers. */
export const openApiAdminOperations = (): Record<string, AdminOperationDoc> => ({
  connectGoogleForm: {
    summary: 'Connect a Google Ads lead form to a project and campaign (its key shown once)',
    description:
      'A new form: 201 with a new key, to paste with the webhook URL into the form’s webhook settings in Google Ads. A form the account has already: 200, moved to this project and campaign, keeping its key (none shown). A form of another account: 409.',
    body: 'GoogleFormBody',
    answers: { ...success('201', 'Connected, with its new key', ref('GoogleForm')), ...success('200', 'Reconnected: the key is unchanged and not shown', ref('GoogleForm')) },
    notFound: [accountMissing, message(UnknownProjectError), message(UnknownCampaignError)],
    conflict: message(GoogleFormConflictError),
  },
  listGoogleForms: {
    summary: 'The account’s Google Ads lead forms (never a key or a hash)',
    description: 'One entry per connected form, with where its leads go and when it was connected.',
    answers: success('200', 'The forms', { type: 'array', items: ref('GoogleFormSummary') }),
    notFound: [accountMissing],
  },
  removeGoogleForm: {
    summary: 'Disconnect a Google Ads lead form: its deliveries answer 401',
    description: 'The form’s leads are kept. Google’s deliveries for it answer 401 `Invalid google_key` at once, even in functions that cached it.',
    answers: success('204', 'Disconnected'),
    notFound: [accountMissing, googleFormMissing],
  },
  rotateGoogleFormKey: {
    summary: 'A new key for a Google Ads lead form (shown once); the old one stops working',
    description: 'Paste the new key into the form’s webhook settings in Google Ads. The old key answers 401 `Invalid google_key` at once, even in functions that cached it.',
    answers: success('201', 'The form with its new key', ref('GoogleForm')),
    notFound: [accountMissing, googleFormMissing],
  },
});
