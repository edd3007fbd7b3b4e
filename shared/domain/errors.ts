/**
 * Every answer the contract gives for a request it refuses, as a typed error. The HTTP layer turns
 * these into the contract's envelope; the domain throws them without knowing about HTTP.
 * Status codes and messages are fixed by CONTRACT.md section 1: lead senders match on them.
 */

export type FieldErrors = Readonly<Record<string, readonly string[]>>;

export abstract class LeadIntakeError extends Error {
  abstract readonly status: number;
  /** A short, stable name for logs and the rejected-lead outcome. */
  abstract readonly reason: string;
}

export const refusal = (status: number, reason: string, message: string) =>
  class extends LeadIntakeError {
    readonly status = status;
    readonly reason = reason;
    constructor() {
      super(message);
    }
  };

export class ApiKeyMissingError extends /* @__PURE__ */ refusal(401, 'api_key_missing', 'API Key missing') {}
export class InvalidApiCredentialsError extends /* @__PURE__ */ refusal(401, 'invalid_api_credentials', 'Invalid API credentials') {}
export class KeyNotAllowedOnEndpointError extends /* @__PURE__ */ refusal(403, 'key_endpoint_not_allowed', 'API key not allowed on this endpoint') {}
export class OriginNotAllowedError extends /* @__PURE__ */ refusal(403, 'origin_not_allowed', 'Origin not allowed') {}
export class DryRunNotAllowedError extends /* @__PURE__ */ refusal(403, 'dry_run_not_allowed', 'Dry runs are not allowed with this API key') {}
export class CaptchaVerificationFailedError extends /* @__PURE__ */ refusal(403, 'captcha_failed', 'Captcha verification failed') {}
export class ClientNotFoundError extends /* @__PURE__ */ refusal(404, 'client_not_found', 'Client not found') {}
export class PayloadTooLargeError extends /* @__PURE__ */ refusal(413, 'payload_too_large', 'Payload too large') {}
export class UnsupportedContentTypeError extends /* @__PURE__ */ refusal(415, 'unsupported_content_type', 'Content-Type must be application/json') {}
export class MalformedJsonBodyError extends /* @__PURE__ */ refusal(400, 'malformed_json', 'Malformed JSON body') {}
export class BodyNotAnObjectError extends /* @__PURE__ */ refusal(400, 'body_not_an_object', 'Request body must be a JSON object') {}
export class SubSourceNotFoundError extends /* @__PURE__ */ refusal(422, 'sub_source_not_found', 'Sub source not found') {}
export class ProjectNotFoundError extends /* @__PURE__ */ refusal(422, 'project_not_found', 'Project not found') {}
export class CampaignNotFoundError extends /* @__PURE__ */ refusal(422, 'campaign_not_found', 'Campaign not found') {}
export class LeadAlreadyExistsError extends /* @__PURE__ */ refusal(422, 'duplicate_lead', 'Lead already exists') {}
export class IdempotencyKeyReusedError extends /* @__PURE__ */ refusal(422, 'idempotency_key_reused', 'Idempotency key reused with a different payload') {}
/** The lead this Idempotency-Key stored was erased at its person's request (CONTRACT.md section 12): nothing is stored again. */
export class LeadErasedError extends /* @__PURE__ */ refusal(409, 'lead_erased', 'Lead was erased') {}
export class InvalidIdempotencyKeyError extends /* @__PURE__ */ refusal(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 printable ASCII characters') {}

/**
 * A write guarded by a connection (ConnectionGuard, ports/connections.ts) found it changed since the container read
 * it: no longer the account's, removed, moved to another project or campaign, or its key rotated.
 * Nothing was written; the source reads the connection afresh and receives the delivery on what is
 * connected now (receivedAtOnce, connection-cache.ts).
 */
export class ConnectionChangedError extends Error {
  readonly kind: string;
  readonly connectionId: string;

  constructor(kind: string, connectionId: string) {
    super(`${kind} ${connectionId} was changed or removed since it was checked`);
    this.name = 'ConnectionChangedError';
    this.kind = kind;
    this.connectionId = connectionId;
  }
}

/**
 * A write's claim (WriteClaim, ports/leads.ts: a chat's open conversation) was held by another delivery:
 * nothing was stored. Not a refusal of the delivery: it was decided by the one that holds the claim.
 */
export class ClaimHeldError extends Error {}

/** Most characters of an identifier a webhook sends and the service stores (CONTRACT.md section 14). */
export const MAX_IDENTIFIER_LENGTH = 200;

/**
 * A webhook delivery naming an identifier the service would store (a Google lead_id or form id, a
 * Meta leadgen id, a call_id) longer than MAX_IDENTIFIER_LENGTH: refused whole, nothing stored.
 */
export class IdentifierTooLongError extends LeadIntakeError {
  readonly status = 400;
  readonly reason = 'identifier_too_long';
  constructor(member: string) {
    super(`${member} must be at most ${MAX_IDENTIFIER_LENGTH} characters`);
  }
}

/** Throws IdentifierTooLongError when `value`'s text (a string, or a number's source digits) is too long. */
export const boundIdentifier = (member: string, text: string | undefined): void => {
  if (text !== undefined && text.length > MAX_IDENTIFIER_LENGTH) throw new IdentifierTooLongError(member);
};

/** A refusal of the lead itself (422): what an asynchronous intake records instead of answering. */
export const isRejection = (error: unknown): error is LeadIntakeError => error instanceof LeadIntakeError && error.status === 422;

/** A refusal that lists every failing field, with the first problem, in words, as its message. */
export abstract class FieldsRefusal extends LeadIntakeError {
  readonly errors: FieldErrors;
  constructor(errors: FieldErrors) {
    const first = Object.values(errors)[0]?.[0] ?? 'The request is invalid';
    super(first);
    this.errors = errors;
  }
}

/**
 * Field validation of a lead: the only lead refusal that lists every failing field. One reason name for
 * it whatever the source (CONTRACT.md section 20); records stored under its former name read as this one
 * (shared/domain/rejections.ts, FORMER_REASON_NAMES).
 */
export class FieldValidationError extends FieldsRefusal {
  readonly status = 422;
  readonly reason = 'validation';
}

// ---- The admin API (CONTRACT.md section 9) --------------------------------------------------------
// A path names an id the account does not have: 404, unlike a lead's 422 for the same ids in a body.

export class AccountNotFoundError extends /* @__PURE__ */ refusal(404, 'account_not_found', 'Account not found') {}
export class UnknownProjectError extends /* @__PURE__ */ refusal(404, 'project_not_found', 'Project not found') {}
export class UnknownCampaignError extends /* @__PURE__ */ refusal(404, 'campaign_not_found', 'Campaign not found') {}
export class UnknownKeyError extends /* @__PURE__ */ refusal(404, 'key_not_found', 'Key not found') {}
export class RevokedKeyRotationError extends /* @__PURE__ */ refusal(409, 'key_revoked', 'Key is revoked and cannot be rotated') {}
export class RejectionNotFoundError extends /* @__PURE__ */ refusal(404, 'rejection_not_found', 'Rejection not found') {}
/** A release's lead write found its record gone (erased since it was read) or released meanwhile: nothing stored. */
export class QuarantineReleaseRefusedError extends Error {
  override readonly name = 'QuarantineReleaseRefusedError';
}
export class AlreadyReleasedError extends /* @__PURE__ */ refusal(409, 'already_released', 'Already released') {}
export class NotQuarantinedError extends /* @__PURE__ */ refusal(409, 'not_quarantined', 'Not a quarantined submission') {}
export class CampaignOfAnotherProjectError extends /* @__PURE__ */ refusal(409, 'campaign_of_another_project', 'Campaign belongs to another project') {}

/** A person named by an invalid mobile number or e-mail, or by neither (CONTRACT.md section 12): 400 with section 2's message. */
export class InvalidPersonError extends FieldsRefusal {
  readonly status = 400;
  readonly reason = 'invalid_person';
}

/** A configuration that breaks a rule of the seed file or of section 7: nothing was changed. */
export class InvalidConfigurationError extends FieldsRefusal {
  readonly status = 400;
  readonly reason = 'invalid_configuration';
}

/**
 * The database throttled or could not be reached after the SDK's own retries. The request stored
 * nothing it answered for; the sender should retry after `retryAfterSeconds`.
 */
/** A refusal that names when to ask again: answered with `Retry-After`, a whole number of seconds, at least 1. */
export abstract class RetryLaterError extends LeadIntakeError {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, options?: { cause?: unknown }) {
    super(message, options);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class ServiceUnavailableError extends RetryLaterError {
  readonly status = 503;
  readonly reason = 'database_unavailable';
  constructor(retryAfterSeconds: number, options?: { cause?: unknown }) {
    super('Service temporarily unavailable, please retry', retryAfterSeconds, options);
  }
}

/**
 * A scoped key past its requests of this minute (KeyRequestBound): 429, to be retried when the next
 * minute begins. Nothing was read or written for the request.
 */
export class KeyRateExceededError extends RetryLaterError {
  readonly status = 429;
  readonly reason = 'key_rate_exceeded';
  constructor(retryAfterSeconds: number) {
    super('Too many requests for this API key, please retry', retryAfterSeconds);
  }
}

/**
 * Refusals of the key lifecycle (CONTRACT.md section 7, admin CLI): typed, so the admin CLI maps them
 * to its exit codes (2 bad arguments, 1 the command failed) and an admin HTTP API to its statuses.
 */
export abstract class KeyAdminError extends Error {}

/** An option of a key is not valid (unknown endpoint, an origin that is not one, a past expiry, ...): exit 2. */
export class InvalidKeyOptionError extends KeyAdminError {
  /** The option at fault, as the CLI names it without its dashes: `endpoints`, `origins`, `expires`, `grace`, `label`. */
  readonly option: string;
  constructor(option: string, message: string) {
    super(message);
    this.option = option;
  }
}

/** The account a key is for does not exist: exit 1. */
export class KeyAccountNotFoundError extends KeyAdminError {
  readonly accountId: string;
  constructor(accountId: string) {
    super(`account ${JSON.stringify(accountId)} does not exist`);
    this.accountId = accountId;
  }
}

/** No key has this key id (or, for a key given in plaintext, this hash): exit 1. */
export class KeyNotFoundError extends KeyAdminError {
  constructor(keyId?: string) {
    super(keyId === undefined ? 'no such API key' : `no API key has the key id ${JSON.stringify(keyId)}`);
  }
}

/** A revoked key, or one whose rotation grace has ended, cannot be rotated: exit 1. */
export class KeyRevokedError extends KeyAdminError {
  readonly keyId: string;
  constructor(keyId: string) {
    super(`API key ${keyId} is revoked and cannot be rotated; create a new key instead`);
    this.keyId = keyId;
  }
}

/** A seed gives a key id that another key already has: the seed is refused. */
export class KeyIdTakenError extends KeyAdminError {
  readonly keyId: string;
  constructor(keyId: string) {
    super(`key id ${keyId} belongs to another API key`);
    this.keyId = keyId;
  }
}
