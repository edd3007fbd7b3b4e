/**
 * Secrets at rest, sealed for their owner, without the KMS SDK client (which the lead functions' bundles
 * cannot carry): the scopes (what a sealed secret is bound to), the sealed text's prefixes, and the
 * local cipher (AES-256-GCM under a local development key, for DynamoDB Local). The KMS side is in
 * shared/kms-sealed-secrets.ts (the SDK client, for the admin CLI and the Meta worker) and
 * shared/captcha/secrets.ts (signed requests, for the functions).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** The stack's KMS key (id or ARN) for page tokens; unset locally. */
export const PAGE_TOKEN_KEY_ID = 'META_PAGE_TOKEN_KEY_ID';
/** Locally only: a 64-hex-digit AES-256 key to use instead of the built-in development key. */
export const LOCAL_TOKEN_KEY = 'META_LOCAL_TOKEN_KEY';

const LOCAL_PREFIX = 'local-aes-gcm:';
const IV_BYTES = 12;
const AUTH_TAG_BYTES = 16;

/**
 * What a sealed secret is bound to: the KMS encryption context and the local cipher's additional data
 * name its owner (a page, an account), so a secret sealed for one owner, or for another purpose, does
 * not open for another. `renew` says how to replace a secret that does not open.
 */
export interface SealScope {
  readonly context: (owner: string) => Record<string, string>;
  readonly aad: (owner: string) => string;
  readonly what: string;
  readonly renew: string;
}

/** Meta page access tokens, sealed for their page (CONTRACT.md section 8). */
export const pageTokenScope: SealScope = {
  context: (pageId) => ({ meta_page_id: pageId }),
  aad: (pageId) => `meta-page:${pageId}`,
  what: 'page token',
  renew: 'connect the page again with the admin CLI',
};

/** Seals secrets at rest for their owner: a secret sealed for one owner does not open for another. */
export interface SecretCipher {
  seal(owner: string, secret: string): Promise<string>;
  open(owner: string, sealed: string): Promise<string>;
}

/** The prefix of text sealed by KMS: the rest is the ciphertext blob, base64. */
export const KMS_SEALED_PREFIX = 'kms:';

/**
 * A LOCAL DEVELOPMENT key, public in this repository: it keeps tokens out of plain sight in a local
 * DynamoDB and nothing more. The deployed stack never uses it (see pageTokenCipherFromEnvironment).
 */
const LOCAL_DEVELOPMENT_KEY = createHash('sha256').update('lead-intake LOCAL DEVELOPMENT page-token key: not a secret, never for AWS').digest();

export const localTokenCipher = (key: Buffer = LOCAL_DEVELOPMENT_KEY, scope: SealScope = pageTokenScope): SecretCipher => {
  if (key.length !== 32) throw new Error(`${LOCAL_TOKEN_KEY} must be 64 hex digits (an AES-256 key)`);
  return {
    async seal(owner, token) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: AUTH_TAG_BYTES });
      cipher.setAAD(Buffer.from(scope.aad(owner), 'utf8'));
      const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return LOCAL_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    async open(owner, sealed) {
      if (!sealed.startsWith(LOCAL_PREFIX)) throw new Error(`${scope.what} was not sealed with the local key: ${scope.renew}`);
      const bytes = Buffer.from(sealed.slice(LOCAL_PREFIX.length), 'base64');
      // A cut ciphertext would hand GCM a shorter tag, which it would accept (forgeable): refused, and
      // the tag length pinned so the decipher never checks fewer than 16 bytes.
      if (bytes.length < IV_BYTES + AUTH_TAG_BYTES) throw new Error(`${scope.what} ciphertext is too short: ${scope.renew}`);
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), { authTagLength: AUTH_TAG_BYTES });
      decipher.setAAD(Buffer.from(scope.aad(owner), 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + AUTH_TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + AUTH_TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
};

/** The local cipher, under LOCAL_TOKEN_KEY when set (never in AWS: see pageTokenCipherFromEnvironment). */
export const localCipherFromEnvironment = (env: NodeJS.ProcessEnv, scope: SealScope): SecretCipher => {
  const local = env[LOCAL_TOKEN_KEY];
  if (local && !/^[0-9a-f]{64}$/i.test(local)) throw new Error(`${LOCAL_TOKEN_KEY} must be 64 hex digits (an AES-256 key)`);
  return localTokenCipher(local ? Buffer.from(local, 'hex') : undefined, scope);
};
