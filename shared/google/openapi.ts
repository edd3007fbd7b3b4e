/**
 * The Google Ads lead form webhook in the OpenAPI document (CONTRACT.md section 10). Messages come
 * from the errors and the handler themselves.
 */
import {
  BodyNotAnObjectError,
  MalformedJsonBodyError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedContentTypeError,
} from '../domain/errors.ts';
import { InvalidGoogleKeyError } from './errors.ts';
import { LEAD_RECEIVED } from './webhook-handler.ts';
import { acknowledgement, failure, jsonRequestBody, retryAfterAnswer, type JsonObject } from '../sources/webhook-openapi.ts';

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
    requestBody: jsonRequestBody(
      {
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
      deliveryExample,
    ),
    responses: {
      '200': acknowledgement(LEAD_RECEIVED, 'The key is right: the lead is stored, was stored already, or is recorded in the account’s rejections.'),
      '400': failure(new MalformedJsonBodyError().message, `Not JSON (or \`${new BodyNotAnObjectError().message}\`): nothing stored.`),
      '401': failure(new InvalidGoogleKeyError().message, '`form_id` missing or not connected, or `google_key` missing or wrong: nothing stored.'),
      '413': failure(new PayloadTooLargeError().message, 'Body over 64 KiB: nothing stored.'),
      '415': failure(new UnsupportedContentTypeError().message, 'A Content-Type that is not JSON: nothing stored.'),
      '503': retryAfterAnswer(failure(new ServiceUnavailableError(1).message, 'The database is unavailable: nothing stored; Google retries, and the retry stores the lead once.')),
    },
  },
});

/** What the OpenAPI builder reads of a source's module (its descriptor's `openapi`). */
export { GOOGLE_ADS_TAG as openApiTag, googleAdsWebhookOperations as openApiOperations };
