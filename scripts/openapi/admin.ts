/**
 * The admin API's part of the OpenAPI document (CONTRACT.md section 9), under its own tag: every admin
 * route (shared/admin-routes.ts), with the messages of the service's own typed errors. The core
 * operations are documented here; a lead source's own by its `openapi` module, which exports
 * `openApiAdminOperations()` (by operation name) and the `openApiAdminSchemas` they name.
 */
import * as path from 'node:path';
import { CHALLENGE_PROVIDERS } from '../../shared/domain/challenge.ts';
import { ID_MAX, NAME_MAX, SUB_SOURCE_MAX } from '../../shared/domain/account-admin.ts';
import {
  AlreadyReleasedError,
  BodyNotAnObjectError,
  CampaignNotFoundError,
  CampaignOfAnotherProjectError,
  LeadAlreadyExistsError,
  NotQuarantinedError,
  ProjectNotFoundError,
  RejectionNotFoundError,
  SubSourceNotFoundError,
  MalformedJsonBodyError,
  RevokedKeyRotationError,
  UnknownCampaignError,
  UnknownKeyError,
  UnknownProjectError,
  ServiceUnavailableError,
} from '../../shared/domain/errors.ts';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../../shared/domain/quarantine.ts';
import { auditOperations } from '../../shared/domain/audit.ts';
import { duplicateSettings, socialPlatforms } from '../../shared/domain/lead.ts';
import { adminRequestFailed } from '../../shared/http/admin-handler.ts';
import { adminRoutes } from '../../shared/admin-routes.ts';
import { LEAD_RETENTION_MAX_DAYS, LEAD_RETENTION_MIN_DAYS, REJECTION_RETENTION_MAX_DAYS, REJECTION_RETENTION_MIN_DAYS } from '../../shared/domain/retention.ts';
import { ADMIN_BASE_PATH, type CoreAdminOperation } from '../../shared/routes.ts';
import { keyEndpointNames, leadSources, platformIdAttributes } from '../../shared/sources/registry.ts';
import { enquiryRecordId } from '../../shared/pulled/wire-names.ts';
import { connectionAdminDocumentation } from '../../shared/sources/connection-openapi.ts';
import { accountMissing, failure, message, ref, success, text, type AdminOperationDoc, type JsonObject } from '../../shared/sources/admin-openapi.ts';

/** An account's own quiet hours for the quiet-source watch (CONTRACT.md section 16). */
const quietHoursSchema = {
  type: 'string',
  pattern: '^(none|([01]\\d|2[0-3]):[0-5]\\d-([01]\\d|2[0-3]):[0-5]\\d)$',
  description: 'India-time hours whose minutes a silence does not count (across midnight when the first is later), or `none`; absent: the stack’s `silenceQuietHours`.',
};

/** How long an account keeps leads and rejection records (CONTRACT.md section 18). */
const leadDaysSchema = {
  type: ['integer', 'null'],
  minimum: LEAD_RETENTION_MIN_DAYS,
  maximum: LEAD_RETENTION_MAX_DAYS,
  description: 'Days a lead is kept after its `created_at`; then the daily retention sweep erases it (Lead Erased, reason `retention`). `null`: kept until erased. Shortening applies to leads already stored.',
};
const rejectionDaysSchema = {
  type: 'integer',
  minimum: REJECTION_RETENTION_MIN_DAYS,
  maximum: REJECTION_RETENTION_MAX_DAYS,
  description: 'Days a rejection or quarantine record is kept.',
};

export const ADMIN_TAG = 'Admin';

/** What a source's own OpenAPI module gives of its admin routes. */
interface SourceAdminDocumentation {
  readonly openApiAdminOperations?: () => Readonly<Record<string, AdminOperationDoc>>;
  readonly openApiAdminSchemas?: JsonObject;
}

/**
 * The documentation of the sources' admin routes, in the registry's order: a kind of connection's, made of
 * its declaration (shared/sources/connection-openapi.ts), then what its OpenAPI module adds of its own.
 */
const sourceDocumentation: SourceAdminDocumentation[] = (
  await Promise.all(
    leadSources
      .filter((source) => source.admin !== undefined)
      .map(async (source): Promise<SourceAdminDocumentation[]> => {
        const own = source.openapi ? ((await import(path.join(import.meta.dirname, '..', '..', source.openapi))) as SourceAdminDocumentation) : {};
        if (!source.connection) return [own];
        const { schemas, operations } = connectionAdminDocumentation(source.connection);
        return [{ openApiAdminSchemas: schemas, openApiAdminOperations: () => operations }, own];
      }),
  )
).flat();
// Portal logins' routes (CONTRACT.md section 17): the pulled sources' one module, after the webhook sources'.
sourceDocumentation.push(await import('../../shared/pulled/openapi.ts'));

const coreSchemas: JsonObject = {
  AdminFailure: {
    type: 'object',
    required: ['status', 'message'],
    properties: {
      status: { const: false },
      message: { type: 'string' },
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'Only on 400: each field that breaks a rule (`subSources.website[1]`, `name`, `accountId`, ...).' },
    },
  },
  AccountSettings: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: text(NAME_MAX, 'No leading or trailing spaces.'),
      duplicateHandling: { type: 'string', enum: [...duplicateSettings], default: 'ignore' },
      subSources: {
        type: 'object',
        additionalProperties: false,
        properties: {
          website: { type: 'array', uniqueItems: true, items: text(SUB_SOURCE_MAX, 'A Website sub source, matched exactly (case-sensitive) against `sub_source`.'), default: [] },
          social: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...socialPlatforms] }, default: [] },
        },
      },
      silenceQuietHours: quietHoursSchema,
      retention: {
        type: 'object',
        additionalProperties: false,
        description: 'A member left out keeps its stored value (defaults: `leadDays` null, `rejectionDays` 30). A value out of range: 400, nothing changed.',
        properties: { leadDays: leadDaysSchema, rejectionDays: rejectionDaysSchema },
      },
    },
  },
  Account: {
    type: 'object',
    required: ['id', 'name', 'duplicateHandling', 'subSources', 'retention', 'projects'],
    description: 'The account with its active projects and campaigns (retired ones are left out); the shape of a seed file account.',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      duplicateHandling: { type: 'string', enum: [...duplicateSettings] },
      subSources: { type: 'object', properties: { website: { type: 'array', items: { type: 'string' } }, social: { type: 'array', items: { type: 'string' } } } },
      silenceQuietHours: { ...quietHoursSchema, description: 'Only when the account has its own quiet hours.' },
      retention: {
        type: 'object',
        required: ['leadDays', 'rejectionDays'],
        properties: { leadDays: { ...leadDaysSchema, default: null }, rejectionDays: { ...rejectionDaysSchema, default: 30 } },
      },
      projects: { type: 'array', items: ref('Project') },
    },
  },
  NameBody: {
    type: 'object',
    additionalProperties: false,
    properties: { name: text(NAME_MAX, 'Defaults to the id.') },
  },
  Project: {
    type: 'object',
    required: ['id', 'name', 'campaigns'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      campaigns: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } }, description: 'Its active campaigns.' },
    },
  },
  Campaign: {
    type: 'object',
    required: ['id', 'name', 'projectId'],
    properties: { id: { type: 'string' }, name: { type: 'string' }, projectId: { type: 'string' } },
  },
  KeyOptions: {
    type: 'object',
    additionalProperties: false,
    properties: {
      label: { type: ['string', 'null'], maxLength: 200 },
      endpoints: { type: ['array', 'null'], items: { type: 'string', enum: [...keyEndpointNames] }, description: 'null or absent: every endpoint.' },
      origins: { type: ['array', 'null'], items: { type: 'string' }, description: 'Browser origins `scheme://host[:port]`: a browser key, website only.' },
      expiresAt: { type: ['string', 'null'], description: 'ISO-8601, in the future.' },
      dryRunsOnly: { type: ['boolean', 'null'], description: 'Limited to dry runs: a request without `x-dry-run: true` answers 403 `Only dry runs are allowed with this API key` (the canary’s key). Not with origins, nor with a source’s own key scope.' },
      captcha: {
        type: ['object', 'null'],
        additionalProperties: false,
        required: ['provider', 'secret'],
        description:
          'A browser key (with origins) only: every submission must carry a captcha_token that this provider verifies, made on a page of one of the key’s origins (the hostname the provider answers). The secret is stored encrypted and never shown again.',
        properties: {
          provider: { type: 'string', enum: [...CHALLENGE_PROVIDERS] },
          secret: { type: 'string', minLength: 1, writeOnly: true },
          action: {
            type: ['string', 'null'],
            pattern: '^[A-Za-z0-9_/]{1,100}$',
            description: 'reCAPTCHA v3 only: the action a token must have been made for (the `action` siteverify answers); absent or null: any.',
          },
        },
      },
    },
  },
  IssuedKey: {
    type: 'object',
    description: 'The key is shown this once; only its SHA-256 hash is stored.',
    required: ['key', 'key_id', 'account_id', 'label', 'endpoints', 'origins', 'expires_at', 'created_at', 'captcha'],
    properties: {
      key: { type: 'string' },
      key_id: { type: 'string' },
      account_id: { type: 'string' },
      label: { type: ['string', 'null'] },
      endpoints: { type: ['array', 'null'], items: { type: 'string' } },
      origins: { type: ['array', 'null'], items: { type: 'string' } },
      expires_at: { type: ['string', 'null'] },
      created_at: { type: 'string' },
      captcha: { type: ['string', 'null'], enum: [...CHALLENGE_PROVIDERS, null], description: 'The challenge’s provider (never its secret); a rotation keeps it.' },
      captcha_action: { type: 'string', description: 'The reCAPTCHA v3 action the key’s tokens must have been made for; absent when it names none.' },
      dry_runs_only: { type: 'boolean', enum: [true], description: 'Limited to dry runs (x-dry-run: true only); absent for a key that is not. A rotation keeps it.' },
      replaces: { type: 'object', description: 'After a rotation: the key replaced, and when it stops working.', properties: { key_id: { type: 'string' }, expires_at: { type: 'string' } } },
    },
  },
  KeySummary: {
    type: 'object',
    description: 'Never the key, never its hash.',
    properties: {
      key_id: { type: 'string' },
      label: { type: ['string', 'null'] },
      endpoints: { type: ['array', 'null'], items: { type: 'string' } },
      origins: { type: ['array', 'null'], items: { type: 'string' } },
      active: { type: 'boolean', description: 'False once revoked, or once a rotation’s grace has ended.' },
      created_at: { type: 'string' },
      expires_at: { type: ['string', 'null'] },
      captcha: { type: ['string', 'null'], enum: [...CHALLENGE_PROVIDERS, null], description: 'The challenge’s provider, or null: never its secret.' },
      captcha_action: { type: 'string', description: 'The reCAPTCHA v3 action the key’s tokens must have been made for; absent when it names none.' },
      dry_runs_only: { type: 'boolean', enum: [true], description: 'Limited to dry runs (x-dry-run: true only); absent for a key that is not. A rotation keeps it.' },
    },
  },
  RejectionPage: {
    type: 'object',
    required: ['items', 'next'],
    properties: {
      items: { type: 'array', items: ref('RejectionRecord') },
      next: { type: ['string', 'null'], description: 'The cursor of the next page; null after the last.' },
    },
  },
  RejectionRecord: {
    type: 'object',
    description: 'A refused request. Quarantine records (honeypot, captcha_failed, captcha_unavailable) carry the validated submission whole; suppressed counters carry count and reasons.',
    required: ['id', 'created_at', 'endpoint', 'reason', 'message', 'fields'],
    properties: {
      id: { type: 'string', description: 'Unique in the account: the id to release.' },
      created_at: { type: 'string' },
      at: { type: 'string', description: 'The time of the refusal (the same as created_at).' },
      requestId: { type: 'string' },
      endpoint: { type: 'string' },
      reason: { type: 'string' },
      message: { type: 'string' },
      mobile: { type: 'string', description: 'The mobile number, masked to its last four digits.' },
      fields: { type: 'object', description: 'The fields that failed, with their messages, bounded to 20.' },
      omittedFields: { type: 'integer' },
      key_id: { type: 'string' },
      // A platform's ids, under the attribute names its source's descriptor declares.
      ...Object.fromEntries(platformIdAttributes.map(({ name, description }) => [name, { type: 'string', ...(description !== undefined && { description }) }])),
      // A pulled enquiry's, as the pulled sources name it (shared/pulled/wire-names.ts).
      ...Object.fromEntries(Object.entries(enquiryRecordId.descriptions).map(([name, description]) => [name, { type: 'string', description }])),
      submission: {
        type: 'object',
        description:
          'A quarantine: the validated submission, whole, in one flat shape: `source` (the endpoint) and every field the request gave, under its request name, side by side ' +
          '(the website’s sub source as `sub_source`, `profession` and `location` beside `name` and `mobile_number`). Records stored before hold the endpoint’s other fields in `details` until they expire.',
        example: {
          source: 'website',
          name: 'Asha Verma',
          mobile_number: '9876543210',
          projectID: 'PRJ-1',
          campaignID: 'CMP-1',
          sub_source: 'Skyline landing page',
          profession: 'Architect',
          location: 'Pune',
          notes: 'Call after 6',
        },
      },
      idempotency_key: { type: 'string', description: 'A quarantine of a request that had an Idempotency-Key: that key. Its release and a later request with the key are one lead.' },
      idempotency_request_hash: { type: 'string', description: 'With idempotency_key: the digest of the request it was sent with (the endpoint and the body without captcha_token).' },
      released_at: { type: 'string' },
      lead_id: { type: 'string', description: 'A released quarantine: the lead it became.' },
      count: { type: 'integer', description: 'A suppressed counter: the records of this key not stored in this minute.' },
      reasons: { type: 'object', additionalProperties: { type: 'integer' }, description: 'A suppressed counter: how many per reason.' },
    },
  },
  PersonData: {
    type: 'object',
    required: ['leads', 'rejections'],
    description: 'Everything the account holds about one person (CONTRACT.md section 12).',
    properties: {
      leads: { type: 'array', items: { type: 'object', description: 'A lead record (the `data` of a lead answer).' }, description: 'Leads whose `mobile_number` or `alternate_number` is the mobile (or whose `email` is the e-mail, case-insensitively), oldest first.' },
      rejections: { type: 'array', items: { type: 'object' }, description: 'Rejection and quarantine records made from a submission that carried it, oldest first.' },
    },
  },
  PersonBody: {
    type: 'object',
    additionalProperties: false,
    description: 'Exactly one of the two, valid by the rules of lead fields.',
    properties: {
      mobile_number: { type: 'string', description: 'Any form a lead accepts (`+91 98765 43210`); normalised to 10 digits.' },
      email: { type: 'string', maxLength: 254, description: 'Compared case-insensitively.' },
    },
  },
  ErasureCounts: {
    type: 'object',
    required: ['leads', 'rejections', 'alternate_numbers'],
    properties: {
      leads: { type: 'integer', minimum: 0, description: 'The person’s leads, erased whole.' },
      rejections: { type: 'integer', minimum: 0, description: 'Rejection and quarantine records erased.' },
      alternate_numbers: { type: 'integer', minimum: 0, description: 'Other people’s leads that named the mobile as their `alternate_number`: only that number was erased.' },
    },
  },
  SourceChannel: {
    type: 'object',
    required: ['source', 'sub_source', 'connection_id', 'leads_14d', 'last_lead_at', 'usual_gap_minutes', 'state'],
    properties: {
      source: { type: 'string', description: 'The `source` of its leads.' },
      sub_source: { type: ['string', 'null'], description: 'The `sub_source` of its leads.' },
      connection_id: {
        type: ['string', 'null'],
        description: 'The connection its leads came through: a Meta page id, a Google form id, a call number’s 10 digits; null for none.',
      },
      leads_14d: { type: 'integer', minimum: 1, description: 'Leads stored in the last 14 days.' },
      last_lead_at: { type: 'string', format: 'date-time', description: 'Its last lead’s `created_at`.' },
      usual_gap_minutes: { type: ['number', 'null'], description: 'The median gap between those leads, in minutes, to one decimal; null below two leads.' },
      state: {
        type: 'string',
        enum: ['watched', 'silent', 'too_few'],
        description: '`too_few` below `silenceMinLeads` leads in 14 days; `silent` when its silence outside quiet hours exceeds the larger of `silenceMinMinutes` and 4 median gaps.',
      },
    },
  },
  AuditPage: {
    type: 'object',
    required: ['items', 'next'],
    properties: {
      items: { type: 'array', items: ref('AuditEntry') },
      next: { type: ['string', 'null'], description: 'The cursor of the next page; null after the last.' },
    },
  },
  AuditEntry: {
    type: 'object',
    description: 'One look at, or erasure of, a person’s data. No name, number or e-mail is in it.',
    required: ['at', 'account_id', 'operation', 'principal', 'request_id', 'subject', 'count'],
    additionalProperties: false,
    properties: {
      at: { type: 'string', format: 'date-time' },
      account_id: { type: 'string' },
      operation: { type: 'string', enum: [...auditOperations], description: 'The same word whether the admin CLI or the admin API was used.' },
      principal: { type: 'string', description: 'Who asked: the caller’s IAM principal ARN (the signed request’s identity; the CLI’s caller identity); under npm start the local access key id or `local cli`.' },
      request_id: { type: 'string', description: 'The answer’s `x-request-id` (the API); the run’s own id (the CLI).' },
      subject: { type: ['string', 'null'], description: 'A keyed hash (HMAC-SHA256) of the mobile or e-mail asked about; null for a list.' },
      count: { type: 'integer', minimum: 0, description: 'How many leads and records were returned or erased.' },
    },
  },
  RotateKeyBody: {
    type: 'object',
    additionalProperties: false,
    properties: {
      graceSeconds: { type: 'integer', minimum: 0, default: 86_400, description: 'Seconds the old key keeps working; 0 ends it at once.' },
      expiresAt: { type: 'string', description: 'The new key’s expiry; none by default.' },
    },
  },
};

const forbidden = {
  description: 'Unsigned, wrongly signed, or signed more than 5 minutes off: the HTTP API’s own answer (no `x-request-id`).',
  content: { 'application/json': { schema: { type: 'object', properties: { message: { const: 'Forbidden' } } } } },
};

/** What each operation takes and answers. */
const personQuery: JsonObject[] = [
  { name: 'mobile_number', in: 'query', required: false, schema: { type: 'string' }, description: 'The person’s mobile, in any form a lead accepts. Give this or `email`.' },
  { name: 'email', in: 'query', required: false, schema: { type: 'string', maxLength: 254 }, description: 'The person’s e-mail, compared case-insensitively. Give this or `mobile_number`.' },
];
const invalidPerson = ['mobile_number must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9', 'email must be a valid email address', 'mobile_number or email is required'];

const coreOperations: Record<CoreAdminOperation, AdminOperationDoc> = {
  listAudit: {
    summary: 'One page of the account’s audit: every look at, or erasure of, a person’s data, newest first',
    description:
      'One entry per admin operation that returned or erased a person’s data (access, erasure, `leads`, `rejections`, `release`, and this list itself), through the CLI or this API, written before its answer. ' +
      'Kept `auditRetentionDays` (at least 365 days), and kept when the person it is about is erased. Follow `next` (pass it back as `cursor`, with the same `since` and `operation`) until it is null. ' +
      'Listing the audit is itself audited (`audit_list`).',
    query: [
      { name: 'since', in: 'query', required: false, schema: { type: 'string' }, description: 'Only entries at or after this ISO 8601 date or time.' },
      { name: 'operation', in: 'query', required: false, schema: { type: 'string', enum: [...auditOperations] }, description: 'Only entries of this operation.' },
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT }, description: 'Entries on the page; outside 1 to 200: 400.' },
      { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'The `next` of the page before; any other text: 400.' },
    ],
    answers: success('200', 'The page', ref('AuditPage')),
    notFound: [accountMissing],
    audited: true,
  },
  getAccount: {
    summary: 'The account, its active projects and campaigns, sub sources and duplicate setting (never keys)',
    description: 'Reads the account as lead requests see it: retired projects and campaigns are left out. Keys are listed by their own route, never here.',
    answers: success('200', 'The account', ref('Account')),
    notFound: [accountMissing],
  },
  putAccount: {
    summary: 'Create the account, or replace its settings (not its projects)',
    description: 'Creates the account, or replaces its name, duplicate setting and sub sources whole; its projects, campaigns and keys are untouched.',
    body: 'AccountSettings',
    answers: success('200', 'The account', ref('Account')),
    notFound: [],
  },
  putProject: {
    summary: 'Create or rename a project, or make a retired one active again (its campaigns stay retired)',
    description: 'Lead requests naming the project are accepted at once. A retired project made active again keeps its campaigns retired until each is PUT again.',
    body: 'NameBody',
    answers: success('200', 'The project', ref('Project')),
    notFound: [accountMissing],
  },
  retireProject: {
    summary: 'Retire a project and its campaigns: its leads are kept, new leads get 422 Project not found',
    description: 'Retiring is not deleting: the project’s leads are kept, and a later PUT makes it active again. Lead requests see it within CONFIG_CACHE_TTL_SECONDS.',
    answers: success('204', 'Retired'),
    notFound: [accountMissing, message(UnknownProjectError)],
  },
  putCampaign: {
    summary: 'Create or rename a campaign, move a retired one here, or make it active again',
    description: 'A campaign id belongs to one active project of the account at a time; a retired campaign id may be PUT again under any project.',
    body: 'NameBody',
    answers: success('200', 'The campaign', ref('Campaign')),
    notFound: [accountMissing, message(UnknownProjectError)],
    conflict: message(CampaignOfAnotherProjectError),
  },
  retireCampaign: {
    summary: 'Retire a campaign: its leads are kept, new leads get 422 Campaign not found',
    description: 'The campaign’s leads are kept; a later PUT makes it active again, under this project or another.',
    answers: success('204', 'Retired'),
    notFound: [accountMissing, message(UnknownProjectError), message(UnknownCampaignError)],
  },
  createKey: {
    summary: 'Create an API key (shown once)',
    description: 'The key is in this answer and nowhere else: only its SHA-256 hash is stored. Options limit it to endpoints, browser origins and a time.',
    body: 'KeyOptions',
    answers: success('201', 'The new key', ref('IssuedKey')),
    notFound: [accountMissing],
  },
  listKeys: {
    summary: 'The account’s keys (never a key or a hash)',
    description: 'Every key of the account with a key id, oldest first, with its options and whether it still works.',
    answers: success('200', 'The keys, oldest first', { type: 'array', items: ref('KeySummary') }),
    notFound: [accountMissing],
  },
  revokeKey: {
    summary: 'Revoke a key: it answers 401 within the cache TTL',
    description: 'The key answers 401 `Invalid API credentials` once the functions’ cached copy expires (CONFIG_CACHE_TTL_SECONDS).',
    answers: success('204', 'Revoked'),
    notFound: [accountMissing, message(UnknownKeyError)],
  },
  rotateKey: {
    summary: 'A new key with the old one’s options; the old one works for the grace period',
    description: 'The new key is shown once. The old key keeps working for `graceSeconds` (default a day; 0 ends it at once), then answers 401.',
    body: 'RotateKeyBody',
    answers: success('201', 'The new key', ref('IssuedKey')),
    notFound: [accountMissing, message(UnknownKeyError)],
    conflict: message(RevokedKeyRotationError),
  },
  findPerson: {
    summary: 'A person’s data: every lead and rejection record of the account that names their mobile or e-mail (an access request)',
    description:
      'Finds the person through keyed-hash lookup items written with each lead and record, never by reading the account’s leads: the cost does not grow with the account. ' +
      'By mobile: leads where it is the `mobile_number` or the `alternate_number`. By e-mail: leads with that `email`, in any case.',
    query: personQuery,
    badRequest: invalidPerson,
    answers: success('200', 'The person’s leads and records', ref('PersonData')),
    audited: true,
    notFound: [accountMissing],
  },
  erasePerson: {
    summary: 'Erase a person’s data from the account (an erasure request): their leads, the records of their refused submissions, their number on others’ leads',
    description:
      'Each erased lead becomes a `Lead Erased` event `{account_id, lead_id}`, and each lead that lost only its alternate number one with `fields: ["alternate_number"]`, delivered like Lead Created. ' +
      'Afterwards the person’s next lead is an original, and a retry under an erased lead’s Idempotency-Key answers 409 `Lead was erased`. ' +
      'An erasure that fails part way can be sent again: it finishes, and answers the counts of the whole erasure; once complete, another answers zeros. ' +
      'Backups (point-in-time recovery) keep erased items for up to 35 days.',
    body: 'PersonBody',
    badRequest: invalidPerson,
    answers: success('200', 'What was erased', ref('ErasureCounts')),
    audited: true,
    notFound: [accountMissing],
  },
  listSources: {
    summary: 'The account’s channels with a lead in the last 14 days, and their pace (a source gone quiet)',
    description:
      'One row per channel (source, sub source and connection), most recent first. A watched channel that goes silent sends one `Source Silent` event; its next lead, one `Source Resumed`. ' +
      'Counted from stored leads only; erasing a lead leaves its channel’s counts alone.',
    answers: success('200', 'The channels', { type: 'array', items: ref('SourceChannel') }),
    notFound: [accountMissing],
  },
  listRejections: {
    summary: 'One page of the account’s rejection log, newest first',
    description:
      'Every refused request of the last 30 days (422s, honeypot and challenge quarantines, Meta and Google refusals, and per browser key and minute one `suppressed` counter past the rate bound). ' +
      'Follow `next` (pass it back as `cursor`, with the same `reason`) until it is null: every record comes once. A page costs a bounded number of queries whatever the log’s size.',
    query: [
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT }, description: 'Records on the page; outside 1 to 200: 400.' },
      { name: 'reason', in: 'query', required: false, schema: { type: 'string' }, description: 'Only records of this reason (honeypot, captcha_failed, captcha_unavailable, validation, duplicate_lead, suppressed, ...; the former name field_validation lists the same records).' },
      { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'The `next` of the page before; any other text: 400.' },
    ],
    answers: success('200', 'The page', ref('RejectionPage')),
    audited: true,
    notFound: [accountMissing],
  },
  releaseRejection: {
    summary: 'Release a quarantined submission into a lead',
    description:
      'A record of reason honeypot, captcha_failed or captcha_unavailable becomes a lead through the account’s duplicate rules as they stand now (its created_at is the release time), once, ' +
      'and a Lead Created event like any lead. The answer is the lead endpoint’s envelope: 200 with the lead, or 422 with the duplicate or validation message. ' +
      'A record of a request that had an Idempotency-Key (its idempotency_key) and a later request with that key are one lead: a release after the request stored it answers 409 Already released; a request after the release is answered the released lead.',
    answers: {
      ...success('200', 'Released: the stored lead, in the lead endpoint’s envelope', { type: 'object', properties: { status: { const: true }, message: { const: 'Lead created successfully' }, data: { type: 'object' } } }),
      '422': failure('Not released: what the original request would now get', [message(LeadAlreadyExistsError), message(ProjectNotFoundError), message(CampaignNotFoundError), message(SubSourceNotFoundError)]),
    },
    audited: true,
    notFound: [accountMissing, message(RejectionNotFoundError)],
    conflict: [message(AlreadyReleasedError), message(NotQuarantinedError)],
  },
};

const ADMIN_DESCRIPTION =
  `Configuration in, for the CRM’s backend: under \`${ADMIN_BASE_PATH}\` on the same API, with IAM authorization (AWS Signature Version 4, service \`execute-api\`). ` +
  'Success answers are the resource itself; failures the envelope `{"status": false, "message": ...}`. Every change is atomic; ' +
  'what is added is seen by lead requests at once, what is retired or revoked within CONFIG_CACHE_TTL_SECONDS. See docs/crm.md, “Connecting your CRM”.';

export const adminTag = { name: ADMIN_TAG, description: ADMIN_DESCRIPTION };

/** The schemas the admin operations name: the core ones, then each source's. */
export const adminSchemas: JsonObject = Object.assign({}, coreSchemas, ...sourceDocumentation.map((docs) => docs.openApiAdminSchemas ?? {}));

/** Every admin operation's documentation, by name: the core ones, then each source's. */
const operations: Readonly<Record<string, AdminOperationDoc>> = Object.assign({}, coreOperations, ...sourceDocumentation.map((docs) => docs.openApiAdminOperations?.() ?? {}));

/** The admin routes as OpenAPI paths (relative to the API's base URL). */
export const adminPaths = (): JsonObject => {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of adminRoutes) {
    const spec = operations[route.operation];
    // A source's route its OpenAPI module does not document: the document would lie by omission.
    if (!spec) throw new Error(`admin route ${route.method} ${route.path} has no OpenAPI documentation of ${route.operation}`);
    const parameters: JsonObject[] = [
      ...([...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
        name: name!,
        in: 'path',
        required: true,
        schema: { type: 'string', minLength: 1, maxLength: ID_MAX },
      })) as JsonObject[]),
      ...(spec.query ?? []),
    ];
    const badRequest = spec.badRequest ?? (spec.body ? [message(MalformedJsonBodyError), message(BodyNotAnObjectError), 'name must be a non-empty string'] : undefined);
    const responses: JsonObject = {
      ...spec.answers,
      ...(badRequest && { '400': failure('A body, query or path id that breaks a rule: nothing changed', badRequest) }),
      '403': forbidden,
      ...(spec.notFound.length > 0 && { '404': failure('An id on the path that is not there', spec.notFound) }),
      ...(spec.query && { '400': failure('A query parameter that breaks a rule', ['limit must be a whole number from 1 to 200', 'cursor is not one this service gave: start again without it']) }),
      ...(spec.conflict && { '409': failure('Refused: nothing changed', typeof spec.conflict === 'string' ? [spec.conflict] : spec.conflict) }),
      '500': failure('Unexpected failure', [adminRequestFailed('5d0f3c1e-8b2a-4c6f-9e7d-2a1b3c4d5e6f')]),
      ...(spec.audited && {
        '503': failure('Its audit entry (every look at a person’s data is recorded before it is answered) or the database could not be written: nothing is returned; retry after `Retry-After`', [
          new ServiceUnavailableError(1).message,
        ]),
      }),
    };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      tags: [ADMIN_TAG],
      operationId: route.operation,
      summary: spec.summary,
      description: spec.description,
      security: [{ sigv4: [] }],
      parameters: [...parameters, ...(spec.query ?? [])],
      ...(spec.body && { requestBody: { required: false, content: { 'application/json': { schema: ref(spec.body) } } } }),
      responses,
    };
  }
  return paths;
};

export const sigv4Scheme = {
  type: 'apiKey',
  in: 'header',
  name: 'Authorization',
  description: 'AWS Signature Version 4 for service `execute-api` and the API’s region (locally: the credentials npm start prints). OpenAPI cannot express SigV4; sign each request with your AWS SDK’s signer.',
  'x-amazon-apigateway-authtype': 'awsSigv4',
};
