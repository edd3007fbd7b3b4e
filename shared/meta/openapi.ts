/**
 * The Meta leadgen webhook in the OpenAPI document (CONTRACT.md section 8): Meta's subscription
 * check and its signed notifications. Messages come from the errors and the handler themselves.
 */
import { MalformedJsonBodyError } from '../domain/errors.ts';
import { signatureParameter, subscriptionCheckAnswers, subscriptionCheckParameters } from '../meta-app-openapi.ts';
import { InvalidSignatureError } from './errors.ts';
import { NOTIFICATION_RECEIVED } from './webhook-handler.ts';
import { acknowledgement, failure, jsonRequestBody, requestId, type JsonObject } from '../sources/webhook-openapi.ts';

export const META_TAG: JsonObject = {
  name: 'Meta Lead Ads',
  description:
    'Facebook and Instagram lead ads straight in: the webhook Meta calls. Each leadgen change is queued, read from the Graph API with the page’s token and created as a social lead (`source: "social"`, with `meta_leadgen_id` and `meta_form_id`); what cannot become a lead is in `admin rejections` (endpoint `meta`).',
};

const notificationExample: JsonObject = {
  object: 'page',
  entry: [
    {
      id: '108000000000001',
      time: 1795341600,
      changes: [
        {
          field: 'leadgen',
          value: { leadgen_id: '1200000000000001', page_id: '108000000000001', form_id: '2200000000000001', ad_id: '23800000000000001', adgroup_id: '23800000000000002', created_time: 1795341590 },
        },
      ],
    },
  ],
};

const id = (description: string): JsonObject => ({ description, oneOf: [{ type: 'string' }, { type: 'integer', minimum: 0 }] });

export const metaWebhookOperations = (): JsonObject => ({
  get: {
    tags: ['Meta Lead Ads'],
    operationId: 'verifyMetaWebhook',
    summary: 'Meta’s subscription check',
    description: 'Meta calls this when the webhook is set up in the Meta app. Answers the challenge exactly when `hub.verify_token` is the configured verify token.',
    security: [],
    parameters: subscriptionCheckParameters('The verify token entered in the Meta app (Secrets Manager in AWS, `META_VERIFY_TOKEN` locally).'),
    responses: subscriptionCheckAnswers(),
  },
  post: {
    tags: ['Meta Lead Ads'],
    operationId: 'receiveMetaLeadgen',
    summary: 'Meta’s page leadgen notifications',
    description:
      'Signed by Meta with the app secret. The signature is checked over the raw body bytes, in constant time, before anything else. Answered as soon as every leadgen change is queued, whatever the Graph API does; changes of other fields, and signed JSON that is not a page notification, are acknowledged and ignored. A leadgen id delivered again within 48 hours (15 days in fact) stores nothing twice.',
    security: [],
    parameters: [signatureParameter],
    requestBody: jsonRequestBody(
      {
        type: 'object',
        properties: {
          object: { type: 'string', const: 'page' },
          entry: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: id('The page id.'),
                time: { type: 'integer' },
                changes: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      field: { type: 'string', const: 'leadgen' },
                      value: {
                        type: 'object',
                        properties: {
                          leadgen_id: id('The lead, read from the Graph API; numbers keep every digit.'),
                          page_id: id('The page, which an account must have connected.'),
                          form_id: id('The lead form, which the account must have mapped to a project and campaign.'),
                          ad_id: id('The ad.'),
                          adgroup_id: id('The ad group.'),
                          created_time: { type: 'integer' },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      notificationExample,
    ),
    responses: {
      '200': acknowledgement(NOTIFICATION_RECEIVED, 'Every leadgen change is queued (or there was none).'),
      '400': failure(new MalformedJsonBodyError().message, 'Signed, but not JSON.'),
      '401': failure(new InvalidSignatureError().message, 'X-Hub-Signature-256 missing, malformed or wrong: nothing was read or stored.'),
      '500': {
        description: 'The changes could not be queued; Meta retries the notification.',
        headers: { 'x-request-id': requestId },
        content: {
          'application/json; charset=utf-8': {
            schema: { type: 'object', properties: { status: { const: false }, message: { type: 'string', pattern: '^Lead could not be created \\(request .+\\)$' } } },
          },
        },
      },
    },
  },
});


/** What the OpenAPI builder reads of a source's module (its descriptor's `openapi`). */
export { META_TAG as openApiTag, metaWebhookOperations as openApiOperations };
