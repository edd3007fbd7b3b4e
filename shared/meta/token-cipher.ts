/**
 * Page access tokens at rest (CONTRACT.md section 8). In AWS: KMS Encrypt/Decrypt under the stack's
 * key, with the page id as encryption context. Locally (DynamoDB Local, no KMS): AES-256-GCM under a
 * local development key, with the page id as additional data. Either way a token sealed for one page
 * does not open for another, and the sealed text says which scheme sealed it.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import type { PageTokenCipher } from '../domain/meta-pages.ts';

/** The stack's KMS key (id or ARN) for page tokens; unset locally. */
export const PAGE_TOKEN_KEY_ID = 'META_PAGE_TOKEN_KEY_ID';
/** Locally only: a 64-hex-digit AES-256 key to use instead of the built-in development key. */
export const LOCAL_TOKEN_KEY = 'META_LOCAL_TOKEN_KEY';

const KMS_PREFIX = 'kms:';
const LOCAL_PREFIX = 'local-aes-gcm:';
const IV_BYTES = 12;
const AUTH_TAG_BYTES = 16;

const context = (pageId: string) => ({ meta_page_id: pageId });

export const kmsTokenCipher = (keyId: string, client = new KMSClient({ maxAttempts: 3 })): PageTokenCipher => ({
  async seal(pageId, token) {
    const { CiphertextBlob } = await client.send(new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(token, 'utf8'), EncryptionContext: context(pageId) }));
    return KMS_PREFIX + Buffer.from(CiphertextBlob!).toString('base64');
  },
  async open(pageId, sealed) {
    if (!sealed.startsWith(KMS_PREFIX)) throw new Error('page token was not sealed with KMS: connect the page again with the admin CLI');
    const { Plaintext } = await client.send(
      new DecryptCommand({ KeyId: keyId, CiphertextBlob: Buffer.from(sealed.slice(KMS_PREFIX.length), 'base64'), EncryptionContext: context(pageId) }),
    );
    return Buffer.from(Plaintext!).toString('utf8');
  },
});

/**
 * A LOCAL DEVELOPMENT key, public in this repository: it keeps tokens out of plain sight in a local
 * DynamoDB and nothing more. The deployed stack never uses it (see pageTokenCipherFromEnvironment).
 */
const LOCAL_DEVELOPMENT_KEY = createHash('sha256').update('lead-intake LOCAL DEVELOPMENT page-token key: not a secret, never for AWS').digest();

export const localTokenCipher = (key: Buffer = LOCAL_DEVELOPMENT_KEY): PageTokenCipher => {
  if (key.length !== 32) throw new Error(`${LOCAL_TOKEN_KEY} must be 64 hex digits (an AES-256 key)`);
  return {
    async seal(pageId, token) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: AUTH_TAG_BYTES });
      cipher.setAAD(Buffer.from(`meta-page:${pageId}`, 'utf8'));
      const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return LOCAL_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    async open(pageId, sealed) {
      if (!sealed.startsWith(LOCAL_PREFIX)) throw new Error('page token was not sealed with the local key: connect the page again with the admin CLI');
      const bytes = Buffer.from(sealed.slice(LOCAL_PREFIX.length), 'base64');
      // A cut ciphertext would hand GCM a shorter tag, which it would accept (forgeable): refused, and
      // the tag length pinned so the decipher never checks fewer than 16 bytes.
      if (bytes.length < IV_BYTES + AUTH_TAG_BYTES) throw new Error('page token ciphertext is too short: connect the page again with the admin CLI');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), { authTagLength: AUTH_TAG_BYTES });
      decipher.setAAD(Buffer.from(`meta-page:${pageId}`, 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + AUTH_TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + AUTH_TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
};

/**
 * KMS when the stack's key is configured; the local key otherwise, but never inside Lambda, where a
 * missing key is a deployment fault to fail on, not a reason to fall back to a public key.
 */
export const pageTokenCipherFromEnvironment = (env: NodeJS.ProcessEnv = process.env): PageTokenCipher => {
  const keyId = env[PAGE_TOKEN_KEY_ID];
  if (keyId) return kmsTokenCipher(keyId);
  if (env.AWS_LAMBDA_FUNCTION_NAME) throw new Error(`${PAGE_TOKEN_KEY_ID} is not set`);
  const local = env[LOCAL_TOKEN_KEY];
  if (local && !/^[0-9a-f]{64}$/i.test(local)) throw new Error(`${LOCAL_TOKEN_KEY} must be 64 hex digits (an AES-256 key)`);
  return localTokenCipher(local ? Buffer.from(local, 'hex') : undefined);
};
