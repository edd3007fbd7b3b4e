/**
 * The call webhook in the OpenAPI document (CONTRACT.md section 13). The providers and their field
 * names come from the provider table itself; messages from the errors and the handler.
 */
import { CALL_RECEIVED } from './webhook-handler.ts';
import { callProviders } from './providers.ts';
import { UnknownCallProviderError } from './errors.ts';
import {
  ApiKeyMissingError,
  BodyNotAnObjectError,
  ClientNotFoundError,
  IdentifierTooLongError,
  InvalidApiCredentialsError,
  KeyNotAllowedOnEndpointError,
  KeyRateExceededError,
  MalformedJsonBodyError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedContentTypeError,
} from '../domain/errors.ts';
import { callsSource } from './source.ts';
import { acknowledgement, failure, retryAfterAnswer, type JsonObject } from '../sources/webhook-openapi.ts';

export const CALLS_TAG: JsonObject = {
  name: callsSource.title,
  description:
    'A call to a project’s number (answered or missed) becomes a lead: the telephony provider notifies the service of each call. Numbers are connected with `admin add-call-number` or `PUT /admin/v1/accounts/{accountId}/call-numbers/{number}`; the key is one made with `create-key --endpoints calls`. Each lead has `source: "call"`, `sub_source` the provider, `name` `Unknown caller` and the `call_*` fields; a call that cannot become a lead is in `admin rejections` (endpoint `call`, with `provider` and `call_id`).',
};

/** Each provider's field names, from the provider table: what the description lists. */
const fieldTable = (): string =>
  callProviders
    .map((provider) => {
      const names = Object.entries(provider.fields).map(([field, candidates]) => `${field}: \`${candidates.join('` (else `')}\`${candidates.length > 1 ? ')' : ''}`);
      return `**${provider.name}**: ${names.join('; ')}.`;
    })
    .join(' ');

/** The calls key in the query string, for providers that cannot set headers (a security scheme of build.ts's components). */
export const CALLS_KEY_QUERY_SCHEME: JsonObject = {
  type: 'apiKey',
  in: 'query',
  name: 'key',
  description: 'A key made with `create-key --endpoints calls`, for providers that cannot set headers (Exotel’s Passthru). `x-api-key` wins when both are sent. Never logged, API Gateway’s access log included.',
};
/** Either: the key in `x-api-key`, or in `?key=`. */
const callsSecurity: JsonObject[] = [{ apiKey: [] }, { callsKeyInQuery: [] }];

const providerPath: JsonObject = {
  name: 'provider',
  in: 'path',
  required: true,
  description: 'The telephony provider: its field names are read (any other: 404 `Unknown call provider`, before the key is read).',
  schema: { type: 'string', enum: callProviders.map((provider) => provider.name) },
};

const responses = (): JsonObject => ({
  '200': acknowledgement(
    CALL_RECEIVED,
    'The key is right: the call is a lead, was one already (15 days at least), was a call out (ignored), or is recorded in the account’s rejections (no call id, caller or called number; a number not connected; a withheld or invalid caller; a retired project; a duplicate under `ignore`): no retry could fix those.',
  ),
  '400': failure(new MalformedJsonBodyError().message, `A body that cannot be read (or \`${new BodyNotAnObjectError().message}\`, or \`${new IdentifierTooLongError('call_id').message}\`): nothing stored.`),
  '401': failure(new ApiKeyMissingError().message, `No key in \`x-api-key\` or \`?key=\`; or \`${new InvalidApiCredentialsError().message}\` for an unknown, revoked or expired key.`),
  '403': failure(new KeyNotAllowedOnEndpointError().message, 'A key that is not limited to `calls` alone: a full key never travels in a URL.'),
  '404': failure(new UnknownCallProviderError().message, `A provider not in the table; or \`${new ClientNotFoundError().message}\` for a key whose account does not exist.`),
  '413': failure(new PayloadTooLargeError().message, 'Body over 64 KiB: nothing stored.'),
  '415': failure(new UnsupportedContentTypeError().message, 'A body neither JSON nor form-encoded: nothing stored.'),
  '429': retryAfterAnswer(
    failure(
      new KeyRateExceededError(1).message,
      'The key sent more calls this minute (UTC) than its bound (`callRequestsPerKeyPerMinute`, 300 by default): nothing read or stored; retry after `Retry-After` seconds, when the next minute begins. Other keys keep their own bound. (API Gateway’s own 429 past the route’s safety-net throttle is `{"message": "Too Many Requests"}`.)',
    ),
  ),
  '503': retryAfterAnswer(failure(new ServiceUnavailableError(1).message, 'The database is unavailable: nothing stored; the provider retries, and the retry stores the call once.')),
});

const description = () =>
  'The call’s parameters may come as the query string, a form-encoded body or a JSON object body, read alike (a body member wins over a query parameter of the same name); values are trimmed, Exotel’s double quotes removed. ' +
  'Numbers are compared on their last 10 digits. The outcome: Exotel’s `CallType` `completed` is answered (any other missed); Knowlarity’s `call_duration` over 0 answered; generic `status` `answered` or `missed`. Start times of Exotel and Knowlarity are India time (`YYYY-MM-DD HH:mm:ss`), stored as UTC. ' +
  fieldTable();

const example = { call_id: 'c-20261122-0001', caller_number: '+91 98765 00043', called_number: '080 4718 1234', status: 'missed', duration_seconds: 0, started_at: '2026-11-22T15:40:05Z', direction: 'inbound' };

export const callWebhookOperations = (): JsonObject => ({
  get: {
    tags: [CALLS_TAG.name as string],
    operationId: 'receiveCallByQuery',
    summary: 'A call, its parameters in the query string (Exotel’s Passthru)',
    description: description(),
    security: callsSecurity,
    parameters: [providerPath],
    responses: responses(),
  },
  post: {
    tags: [CALLS_TAG.name as string],
    operationId: 'receiveCall',
    summary: 'A call, its parameters in a JSON or form-encoded body (Knowlarity, generic), the query string, or both',
    description: description(),
    security: callsSecurity,
    parameters: [providerPath],
    requestBody: {
      required: false,
      content: {
        'application/json': { schema: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } }, example },
        'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } },
      },
    },
    responses: responses(),
  },
});

// What the OpenAPI builder reads of a declared source's module (scripts/openapi/build.ts).
export const openApiSecuritySchemes: JsonObject = { callsKeyInQuery: CALLS_KEY_QUERY_SCHEME };
export { CALLS_TAG as openApiTag, callWebhookOperations as openApiOperations };
