/**
 * An account's API keys as the admin API manages them (CONTRACT.md section 9): the key lifecycle of
 * api-keys.ts, scoped to the account on the path (another account's key id is "not found"), with
 * request bodies checked for their types and the lifecycle's refusals turned into the admin API's.
 */
import {
  createKey,
  listKeys,
  revokeKey,
  rotateKey,
  type IssuedKey,
  type KeyAdminDependencies,
  type KeySummary,
  type RotatedKey,
} from './api-keys.ts';
import { accountIdProblem, fieldProblems, reportUnknownFields } from './account-admin.ts';
import type { ChallengeRequest } from './challenge.ts';
import {
  AccountNotFoundError,
  InvalidConfigurationError,
  InvalidKeyOptionError,
  KeyAccountNotFoundError,
  KeyNotFoundError,
  KeyRevokedError,
  RevokedKeyRotationError,
  UnknownKeyError,
} from './errors.ts';

type Body = Readonly<Record<string, unknown>>;

/** The body field each option of the key lifecycle comes from. */
const fieldOfOption: Readonly<Record<string, string>> = { label: 'label', endpoints: 'endpoints', origins: 'origins', expires: 'expiresAt', grace: 'graceSeconds', 'dry-runs-only': 'dryRunsOnly' };

/** Runs a lifecycle operation, answering its refusals as the admin API does. */
const refusalsAsAnswers = async <T>(operation: () => Promise<T>): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof KeyAccountNotFoundError) throw new AccountNotFoundError();
    if (error instanceof KeyNotFoundError) throw new UnknownKeyError();
    if (error instanceof KeyRevokedError) throw new RevokedKeyRotationError();
    if (error instanceof InvalidKeyOptionError) {
      const field = fieldOfOption[error.option] ?? error.option;
      throw new InvalidConfigurationError({ [field]: [error.message] });
    }
    throw error;
  }
};

/** The types the body's fields must have; their values are the lifecycle's to check. */
const checkBody = (accountId: string, body: Body, fields: Readonly<Record<string, 'text' | 'list' | 'seconds' | 'challenge' | 'boolean'>>) => {
  const problems = fieldProblems();
  const accountProblem = accountIdProblem(accountId);
  if (accountProblem) problems.report('accountId', accountProblem);
  reportUnknownFields(body, Object.keys(fields), problems.report);
  for (const [field, kind] of Object.entries(fields)) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (kind === 'text' && typeof value !== 'string') problems.report(field, 'must be a string');
    if (kind === 'list' && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) problems.report(field, 'must be an array of strings');
    if (kind === 'seconds' && typeof value !== 'number') problems.report(field, 'must be a whole number of seconds');
    if (kind === 'boolean' && typeof value !== 'boolean') problems.report(field, 'must be true or false');
    if (kind === 'challenge' && !isChallenge(value)) problems.report(field, 'must be an object {"provider", "secret"} of strings, with "action" (reCAPTCHA v3) when the key names one');
  }
  problems.check();
};

const isChallenge = (value: unknown): value is ChallengeRequest =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).every((name) => name === 'provider' || name === 'secret' || name === 'action') &&
  typeof (value as ChallengeRequest).provider === 'string' &&
  ['string', 'undefined'].includes(typeof (value as ChallengeRequest).secret) &&
  ((value as ChallengeRequest).action === null || ['string', 'undefined'].includes(typeof (value as ChallengeRequest).action));

export class AccountKeys {
  readonly #deps: KeyAdminDependencies;

  constructor(deps: KeyAdminDependencies) {
    this.#deps = deps;
  }

  /** `POST /accounts/{id}/keys`: a new key, shown this once. */
  async create(accountId: string, body: Body): Promise<IssuedKey> {
    checkBody(accountId, body, { label: 'text', endpoints: 'list', origins: 'list', expiresAt: 'text', captcha: 'challenge', dryRunsOnly: 'boolean' });
    return refusalsAsAnswers(() =>
      createKey(this.#deps, {
        accountId,
        label: body.label as string | null | undefined,
        endpoints: body.endpoints as string[] | null | undefined,
        origins: body.origins as string[] | null | undefined,
        expiresAt: body.expiresAt as string | null | undefined,
        captcha: body.captcha as ChallengeRequest | null | undefined,
        dryRunsOnly: body.dryRunsOnly as boolean | null | undefined,
      }),
    );
  }

  /** `GET /accounts/{id}/keys`: never a key or a hash. */
  async list(accountId: string): Promise<KeySummary[]> {
    checkBody(accountId, {}, {});
    return refusalsAsAnswers(() => listKeys(this.#deps, accountId));
  }

  /** `DELETE /accounts/{id}/keys/{keyId}`: revoked. */
  async revoke(accountId: string, keyId: string): Promise<void> {
    await this.#ownKey(accountId, keyId);
    await refusalsAsAnswers(() => revokeKey(this.#deps, { keyId }));
  }

  /** `POST /accounts/{id}/keys/{keyId}/rotate`: a new key; the old one works for the grace period. */
  async rotate(accountId: string, keyId: string, body: Body): Promise<RotatedKey> {
    checkBody(accountId, body, { graceSeconds: 'seconds', expiresAt: 'text' });
    await this.#ownKey(accountId, keyId);
    return refusalsAsAnswers(() =>
      rotateKey(this.#deps, {
        keyId,
        ...(typeof body.graceSeconds === 'number' && { graceSeconds: body.graceSeconds }),
        ...(typeof body.expiresAt === 'string' && { expiresAt: body.expiresAt }),
      }),
    );
  }

  /** The account exists, and the key id is one of its keys: another account's key is "not found". */
  async #ownKey(accountId: string, keyId: string): Promise<void> {
    checkBody(accountId, {}, {});
    if (!(await this.#deps.accounts.loadAccount(accountId))) throw new AccountNotFoundError();
    const found = await this.#deps.keys.findKeyById(keyId);
    if (!found || found.key.accountId !== accountId) throw new UnknownKeyError();
  }
}
