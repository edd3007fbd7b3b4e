/**
 * Portal logins' admin routes in the OpenAPI document (CONTRACT.md section 17): their schemas and each
 * operation's words (scripts/openapi/admin.ts joins them after the sources').
 */
import { UnknownCampaignError, UnknownProjectError } from '../domain/errors.ts';
import { accountMissing, message, ref, success, type AdminOperationDoc, type JsonObject } from '../sources/admin-openapi.ts';
import { portalLoginConflict, portalLoginNotFound, portalPullRunning } from './refusals.ts';
import { failureReasons } from './wire-names.ts';

const target = (description: string): JsonObject => ({
  type: 'object',
  additionalProperties: false,
  required: ['projectId', 'campaignId'],
  description,
  properties: { projectId: { type: 'string', minLength: 1, maxLength: 100 }, campaignId: { type: 'string', minLength: 1, maxLength: 100 } },
});

export const openApiAdminSchemas: JsonObject = {
  PortalLoginBody: {
    type: 'object',
    additionalProperties: false,
    required: ['projectId', 'campaignId'],
    properties: {
      projectId: { type: 'string', minLength: 1, maxLength: 100, description: 'Where the login’s enquiries become leads, unless its map names their portal project.' },
      campaignId: { type: 'string', minLength: 1, maxLength: 100 },
      credential: {
        type: 'string',
        minLength: 1,
        maxLength: 1000,
        writeOnly: true,
        description: '99acres: the password of the user name; MagicBricks: the key the portal issued; Housing.com: the encryption key. Required when the login is new; stored encrypted, never answered.',
      },
      map: { type: 'object', additionalProperties: target('Where one portal project’s enquiries go.'), description: 'By portal project id (99acres `ProjId`, MagicBricks `pid`, Housing.com `project_id`).' },
      feed: { type: 'string', enum: ['builder', 'broker'], description: 'Housing.com only: its builder feed (the default) or its broker feed.' },
    },
  },
  PortalLogin: {
    type: 'object',
    required: ['portal', 'login', 'project_id', 'campaign_id', 'map', 'connected_at', 'pulled_through', 'last_pull_at', 'state', 'failing', 'enquiries_stored'],
    description: 'A portal login and its pull: never its credential.',
    properties: {
      portal: { type: 'string', enum: ['99acres', 'magicbricks', 'housing'] },
      login: { type: 'string' },
      project_id: { type: 'string' },
      campaign_id: { type: 'string' },
      map: { type: 'object', additionalProperties: { type: 'object', properties: { project_id: { type: 'string' }, campaign_id: { type: 'string' } } } },
      feed: { type: 'string' },
      connected_at: { type: 'string', format: 'date-time' },
      pulled_through: { type: ['string', 'null'], format: 'date-time', description: 'The watermark: every enquiry the portal received before it is stored or recorded.' },
      last_pull_at: { type: ['string', 'null'], format: 'date-time' },
      state: { type: 'string', enum: ['ok', 'failing'] },
      failing: {
        type: ['object', 'null'],
        required: ['since', 'reason', 'message'],
        properties: { since: { type: 'string', format: 'date-time' }, reason: { type: 'string', enum: [...failureReasons] }, message: { type: 'string' } },
      },
      enquiries_stored: { type: 'integer', minimum: 0, description: 'Leads and records its pulls stored so far.' },
    },
  },
  PortalPull: {
    type: 'object',
    required: ['stored', 'recorded', 'already', 'pulled_through'],
    properties: {
      stored: { type: 'integer', minimum: 0, description: 'Enquiries that became leads.' },
      recorded: { type: 'integer', minimum: 0, description: 'Enquiries kept as rejection records (a duplicate under `ignore`, a foreign number).' },
      already: { type: 'integer', minimum: 0, description: 'Enquiries an earlier pull stored or recorded (or whose lead was erased).' },
      pulled_through: { type: ['string', 'null'], format: 'date-time' },
    },
  },
};

export const openApiAdminOperations = (): Record<string, AdminOperationDoc> => ({
  connectPortalLogin: {
    summary: 'Connect a portal login, or change what is given of one: its enquiries are pulled as leads',
    description:
      'The path names the portal (`99acres`, `magicbricks`, `housing`) and the login (99acres: the user name; MagicBricks: the login id; Housing.com: the profile id). ' +
      'New: 201, `credential` required. Connected to this account: 200, what is given replaced, its watermark kept. Another account’s: 409.',
    body: 'PortalLoginBody',
    answers: { ...success('201', 'Connected', ref('PortalLogin')), ...success('200', 'Changed', ref('PortalLogin')) },
    notFound: [accountMissing, message(UnknownProjectError), message(UnknownCampaignError)],
    conflict: portalLoginConflict.message,
  },
  listPortalLogins: {
    summary: 'The account’s portal logins and their pulls',
    description: 'Each login with where its enquiries go, its watermark, its last pull and whether it is failing (since when, why). Never a credential.',
    answers: success('200', 'The logins', { type: 'array', items: ref('PortalLogin') }),
    notFound: [accountMissing],
  },
  removePortalLogin: {
    summary: 'Disconnect a portal login: its pulls stop at once',
    description: 'Its leads are kept. Applying a seed again never connects it back; connecting it with PUT does.',
    answers: success('204', 'Disconnected'),
    notFound: [accountMissing, portalLoginNotFound.message],
  },
  pullPortalLogin: {
    summary: 'Pull a portal login now',
    description: 'One pull, as the schedule runs it: what it stored, recorded, found already there, and how far the login is pulled. 409 while another pull of it runs.',
    answers: success('200', 'Pulled', ref('PortalPull')),
    notFound: [accountMissing, portalLoginNotFound.message],
    conflict: portalPullRunning.message,
  },
});
