/**
 * WhatsApp chats in the OpenAPI document (CONTRACT.md section 15): Meta's subscription check and its signed
 * WhatsApp Business Account notifications (the admin routes of its numbers are its connection kind's).
 * Messages come from the errors and the source's declared answer.
 */
import { IdentifierTooLongError, MalformedJsonBodyError, PayloadTooLargeError, ServiceUnavailableError } from '../domain/errors.ts';
import { InvalidSignatureError } from '../meta-app.ts';
import { signatureParameter, subscriptionCheckAnswers, subscriptionCheckParameters } from '../meta-app-openapi.ts';
import { acknowledgement, failure, jsonRequestBody, retryAfterAnswer, type JsonObject } from '../sources/webhook-openapi.ts';
import { whatsappSource } from './source.ts';

export const WHATSAPP_TAG: JsonObject = {
  name: whatsappSource.title,
  description:
    'A chat with a project’s WhatsApp Business number (a click-to-WhatsApp ad, a website’s WhatsApp button, a number on a brochure) becomes a lead: Meta notifies the webhook of each message. The first message of a sender’s conversation with a connected number is a `social` lead of platform `wp` (`sub_source` `wp`), with `whatsapp_message_id`, `whatsapp_phone_number_id` and, for an ad’s chat, `whatsapp_ad_id`, `whatsapp_referral_type`, `whatsapp_source_url`, `whatsapp_headline` and `ctwa_clid`. Numbers are connected by `phone_number_id` with `admin add-whatsapp-number` or `PUT /admin/v1/accounts/{accountId}/whatsapp-numbers/{phoneNumberId}`; what cannot become a lead is in `admin rejections` (endpoint `whatsapp`).',
};

const tag = WHATSAPP_TAG.name as string;

const notificationExample: JsonObject = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '918047181234', phone_number_id: '106540352242922' },
            contacts: [{ profile: { name: 'Asha' }, wa_id: '919876543210' }],
            messages: [
              {
                from: '919876543210',
                id: 'wamid.HBgMOTE5ODc2NTQzMjEwFQIAEhggQTFCMkMzRDRFNUY2',
                timestamp: '1764300000',
                type: 'text',
                text: { body: 'Hi, is the 2 BHK at Skyline Towers still available?' },
                referral: {
                  source_url: 'https://fb.me/skyline-towers',
                  source_id: '120210000000000001',
                  source_type: 'ad',
                  headline: 'Skyline Towers: 2 and 3 BHK',
                  ctwa_clid: 'ARAkLkA8rmlFeiCktEJQ-QTwRiyYHAFDLMNDBH0CD3qpjd0HR4irJ6LEkR7JwFF4XvnO2E4Nx0-eM-GABDLOPaOdRMv-_zfUQ2a',
                },
              },
            ],
          },
        },
      ],
    },
  ],
};

const stringOf = (description: string, maxLength?: number): JsonObject => ({ type: 'string', description, ...(maxLength !== undefined && { maxLength }) });

export const whatsappWebhookOperations = (): JsonObject => ({
  get: {
    tags: [tag],
    operationId: 'verifyWhatsAppWebhook',
    summary: 'Meta’s subscription check',
    description: 'As the Meta Lead Ads webhook’s, with the same verify token: Meta calls it when the WhatsApp Business Account’s webhook is set up in the Meta app.',
    security: [],
    parameters: subscriptionCheckParameters('The Meta app’s verify token (Secrets Manager in AWS, `META_VERIFY_TOKEN` locally).'),
    responses: subscriptionCheckAnswers(),
  },
  post: {
    tags: [tag],
    operationId: 'receiveWhatsAppMessages',
    summary: 'Meta’s WhatsApp Business Account notifications (the `messages` field)',
    description:
      'Signed by Meta with the app secret (the Meta Lead Ads webhook’s). Answered once every message of the notification is stored, recorded or ignored: a message needs no Graph read. ' +
      'A conversation is the messages of one sender to one connected number from its first for `whatsappConversationDays` days (7 by default): its first message is a lead (or a rejection record), its later messages store nothing, and a message with another ad’s `referral.source_id` starts a new one. ' +
      'A withheld number (a WhatsApp username: `from_user_id`, or `user_id`, without `from`) is a `whatsapp_number_withheld` record with `whatsapp_user_id`, named by the contact of that `user_id`; with `from` beside it, `from` decides; a sender outside India a `validation` record; a number no account has connected is ignored. `statuses`, other fields, `system` messages and signed JSON that is not a WhatsApp Business Account notification are acknowledged and ignored. A message id delivered again (8 days at least) stores nothing more.',
    security: [],
    parameters: [signatureParameter],
    requestBody: jsonRequestBody(
      {
        type: 'object',
        properties: {
          object: { type: 'string', const: 'whatsapp_business_account' },
          entry: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: stringOf('The WhatsApp Business Account id.'),
                changes: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      field: { type: 'string', const: 'messages' },
                      value: {
                        type: 'object',
                        properties: {
                          metadata: {
                            type: 'object',
                            properties: { phone_number_id: stringOf('The business number, which an account must have connected.', 200), display_phone_number: stringOf('The business number as shown.') },
                          },
                          contacts: { type: 'array', items: { type: 'object', properties: { wa_id: stringOf('The sender.'), user_id: stringOf('The sender, when a WhatsApp username.'), profile: { type: 'object', properties: { name: stringOf('The lead’s name (`WhatsApp user` when absent).') } } } } },
                          messages: {
                            type: 'array',
                            items: {
                              type: 'object',
                              properties: {
                                id: stringOf('The message id: one lead or record at most.', 200),
                                from: stringOf('The sender’s number: `91` and an Indian mobile.'),
                                from_user_id: stringOf('A sender whose number is withheld (a WhatsApp username).'),
                                user_id: stringOf('The same, as older notifications name it.'),
                                timestamp: stringOf('Seconds since the epoch: the conversation’s clock.'),
                                type: stringOf('`text`, `button`, `interactive`, `image`, ...; `system` is ignored.'),
                                referral: {
                                  type: 'object',
                                  description: 'A click-to-WhatsApp ad or post the chat began from.',
                                  properties: {
                                    source_type: stringOf('`ad` or `post`.'),
                                    source_id: stringOf('The ad or post: another one starts a new conversation.'),
                                    source_url: stringOf('Kept when an https URL of at most 2,000 characters.'),
                                    headline: stringOf('Cut to 300 characters.'),
                                    ctwa_clid: stringOf('The click id.', 200),
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
              },
            },
          },
        },
      },
      notificationExample,
    ),
    responses: {
      '200': acknowledgement(whatsappSource.acceptance.message, 'Every message is stored, recorded or ignored (or there was none).'),
      '400': failure(new MalformedJsonBodyError().message, `Signed, but not JSON; or \`${new IdentifierTooLongError('whatsapp_message_id').message}\` (a message id, phone number id or \`ctwa_clid\` over 200 characters): nothing of the notification stored.`),
      '401': failure(new InvalidSignatureError().message, 'X-Hub-Signature-256 missing, malformed or wrong: nothing was read or stored.'),
      '413': failure(new PayloadTooLargeError().message, 'Body over 3 MiB: nothing stored.'),
      '503': retryAfterAnswer(failure(new ServiceUnavailableError(1).message, 'The database is unavailable: Meta retries (for up to 7 days), and its retries store each message once.')),
    },
  },
});

/** What the OpenAPI builder reads of a source's module (its descriptor's `openapi`). */
export { WHATSAPP_TAG as openApiTag, whatsappWebhookOperations as openApiOperations };
