/**
 * Challenge secrets at rest (CONTRACT.md section 11), sealed like Meta page tokens: under the stack's
 * page-token KMS key in AWS, the local cipher locally, bound to the key's account (a rotation's
 * successor shares the account, so it keeps the sealed secret as it is).
 *
 * The functions (the website lead function opens, the admin function seals) make one signed KMS call
 * each (shared/aws/signed-json.ts), not the KMS SDK client, which would take the website bundle past
 * its cold-start budget. The admin CLI seals with the SDK client, as it does page tokens
 * (scripts/admin/keys.ts).
 */
import type { ChallengeSecretCipher } from '../domain/challenge.ts';
import { awsJsonCall } from '../aws/signed-json.ts';
import { currentDeadline } from '../deadline.ts';
import { KMS_SEALED_PREFIX, localCipherFromEnvironment, PAGE_TOKEN_KEY_ID, type SealScope } from '../sealed-secrets.ts';

export const challengeSecretScope: SealScope = {
  context: (accountId) => ({ lead_intake_captcha_account: accountId }),
  aad: (accountId) => `captcha-secret:${accountId}`,
  what: 'challenge secret',
  renew: 'rotate the key after creating a new one with its challenge',
};

/** The most a KMS call may take; less when the request has less time left. */
const KMS_TIMEOUT_MS = 2_000;
/** Kept back from the request's deadline for what follows the opening (the provider, the write). */
const KMS_RESERVE_MS = 1_000;

const kmsTimeout = (): number => {
  const deadline = currentDeadline();
  return deadline ? Math.max(1, Math.min(KMS_TIMEOUT_MS, deadline.remainingMs() - KMS_RESERVE_MS)) : KMS_TIMEOUT_MS;
};

/** KMS Encrypt and Decrypt as signed requests, with the account as encryption context. */
export const signedKmsCipher = (keyId: string, region: string, endpoint?: string): ChallengeSecretCipher => {
  const call = <T>(target: string, body: Record<string, unknown>) =>
    awsJsonCall<T>({ service: 'kms', target: `TrentService.${target}`, region, body, timeoutMs: kmsTimeout(), ...(endpoint && { endpoint }) });
  return {
    async seal(accountId, secret) {
      const { CiphertextBlob } = await call<{ CiphertextBlob: string }>('Encrypt', {
        KeyId: keyId,
        Plaintext: Buffer.from(secret, 'utf8').toString('base64'),
        EncryptionContext: challengeSecretScope.context(accountId),
      });
      return KMS_SEALED_PREFIX + CiphertextBlob;
    },
    async open(accountId, sealed) {
      if (!sealed.startsWith(KMS_SEALED_PREFIX)) throw new Error(`challenge secret was not sealed with KMS: ${challengeSecretScope.renew}`);
      const { Plaintext } = await call<{ Plaintext: string }>('Decrypt', {
        KeyId: keyId,
        CiphertextBlob: sealed.slice(KMS_SEALED_PREFIX.length),
        EncryptionContext: challengeSecretScope.context(accountId),
      });
      return Buffer.from(Plaintext, 'base64').toString('utf8');
    },
  };
};

/** The functions' cipher: signed KMS calls when the stack's key is set; the local cipher outside Lambda only. */
export const challengeSecretCipherFromEnvironment = (env: NodeJS.ProcessEnv = process.env): ChallengeSecretCipher => {
  const keyId = env[PAGE_TOKEN_KEY_ID];
  if (keyId) return signedKmsCipher(keyId, env.AWS_REGION ?? keyId.split(':')[3] ?? 'us-east-1', env.KMS_ENDPOINT || undefined);
  if (env.AWS_LAMBDA_FUNCTION_NAME) throw new Error(`${PAGE_TOKEN_KEY_ID} is not set`);
  return localCipherFromEnvironment(env, challengeSecretScope);
};
