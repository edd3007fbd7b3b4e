/**
 * Page access tokens at rest (CONTRACT.md section 8). In AWS: KMS Encrypt/Decrypt under the stack's
 * key, with the page id as encryption context. Locally (DynamoDB Local, no KMS): AES-256-GCM under a
 * local development key, with the page id as additional data. Either way a token sealed for one page
 * does not open for another, and the sealed text says which scheme sealed it.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import type { PageTokenCipher } from './pages.ts';
import { KMS_SEALED_PREFIX as KMS_PREFIX, localCipherFromEnvironment, pageTokenScope, PAGE_TOKEN_KEY_ID, type SealScope } from '../sealed-secrets.ts';

export { KMS_SEALED_PREFIX, LOCAL_TOKEN_KEY, localCipherFromEnvironment, localTokenCipher, PAGE_TOKEN_KEY_ID, pageTokenScope, type SealScope } from '../sealed-secrets.ts';

export const kmsTokenCipher = (keyId: string, client = new KMSClient({ maxAttempts: 3 }), scope: SealScope = pageTokenScope): PageTokenCipher => ({
  async seal(owner, token) {
    const { CiphertextBlob } = await client.send(new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(token, 'utf8'), EncryptionContext: scope.context(owner) }));
    return KMS_PREFIX + Buffer.from(CiphertextBlob!).toString('base64');
  },
  async open(owner, sealed) {
    if (!sealed.startsWith(KMS_PREFIX)) throw new Error(`${scope.what} was not sealed with KMS: ${scope.renew}`);
    const { Plaintext } = await client.send(
      new DecryptCommand({ KeyId: keyId, CiphertextBlob: Buffer.from(sealed.slice(KMS_PREFIX.length), 'base64'), EncryptionContext: scope.context(owner) }),
    );
    return Buffer.from(Plaintext!).toString('utf8');
  },
});

/**
 * KMS when the stack's key is configured; the local key otherwise, but never inside Lambda, where a
 * missing key is a deployment fault to fail on, not a reason to fall back to a public key.
 */
export const pageTokenCipherFromEnvironment = (env: NodeJS.ProcessEnv = process.env, scope: SealScope = pageTokenScope): PageTokenCipher => {
  const keyId = env[PAGE_TOKEN_KEY_ID];
  if (keyId) return kmsTokenCipher(keyId, undefined, scope);
  if (env.AWS_LAMBDA_FUNCTION_NAME) throw new Error(`${PAGE_TOKEN_KEY_ID} is not set`);
  return localCipherFromEnvironment(env, scope);
};

