/**
 * Secrets sealed by the stack's KMS key (shared/sealed-secrets.ts's scopes and prefixes): the SDK client's
 * side, for the admin CLI and the functions that may carry it (Meta's worker). Whose secret it is comes
 * in as its scope, so the challenge secrets and Meta's page tokens share the key and never each other's
 * secrets.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { KMS_SEALED_PREFIX as KMS_PREFIX, localCipherFromEnvironment, PAGE_TOKEN_KEY_ID, type SealScope, type SecretCipher } from './sealed-secrets.ts';

export const kmsSecretCipher = (keyId: string, scope: SealScope, client = new KMSClient({ maxAttempts: 3 })): SecretCipher => ({
  async seal(owner, secret) {
    const { CiphertextBlob } = await client.send(new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(secret, 'utf8'), EncryptionContext: scope.context(owner) }));
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
export const sealedSecretCipherFromEnvironment = (env: NodeJS.ProcessEnv, scope: SealScope): SecretCipher => {
  const keyId = env[PAGE_TOKEN_KEY_ID];
  if (keyId) return kmsSecretCipher(keyId, scope);
  if (env.AWS_LAMBDA_FUNCTION_NAME) throw new Error(`${PAGE_TOKEN_KEY_ID} is not set`);
  return localCipherFromEnvironment(env, scope);
};
