/**
 * The Meta leadgen webhook in the OpenAPI document (CONTRACT.md section 8): Meta's subscription
 * check and its signed notifications. Messages come from the errors and the handler themselves.
 */
import { MalformedJsonBodyError } from '../domain/errors.ts';
import { InvalidSignatureError, WebhookVerificationFailedError } from './errors.ts';
import { NOTIFICATION_RECEIVED } from './webhook-handler.ts';
import { acknowledgement, failure, requestId, type JsonObject } from '../sources/webhook-openapi.ts';

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
    parameters: [
      { name: 'hub.mode', in: 'query', required: true, schema: { type: 'string', const: 'subscribe' } },
      { name: 'hub.verify_token', in: 'query', required: true, description: 'The verify token entered in the Meta app (Secrets Manager in AWS, `META_VERIFY_TOKEN` locally).', schema: { type: 'string' } },
      { name: 'hub.challenge', in: 'query', required: true, description: 'Echoed back exactly.', schema: { type: 'string' } },
    ],
    responses: {
      '200': {
        description: 'The challenge, exactly.',
        headers: { 'x-request-id': requestId },
        content: { 'text/plain; charset=utf-8': { schema: { type: 'string' }, example: '1158201444' } },
      },
      '403': failure(new WebhookVerificationFailedError().message, 'Wrong verify token, another mode, or a parameter missing.'),
    },
  },
  post: {
    tags: ['Meta Lead Ads'],
    operationId: 'receiveMetaLeadgen',
    summary: 'Meta’s page leadgen notifications',
    description:
      'Signed by Meta with the app secret. The signature is checked over the raw body bytes, in constant time, before anything else. Answered as soon as every leadgen change is queued, whatever the Graph API does; changes of other fields, and signed JSON that is not a page notification, are acknowledged and ignored. A leadgen id delivered again within 48 hours (15 days in fact) stores nothing twice.',
    security: [],
    parameters: [
      {
        name: 'X-Hub-Signature-256',
        in: 'header',
        required: true,
        description: '`sha256=` and the hex HMAC-SHA256 of the raw body, keyed with the Meta app secret.',
        schema: { type: 'string', pattern: '^sha256=[0-9a-fA-F]{64}$' },
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
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
          example: notificationExample,
        },
      },
    },
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
