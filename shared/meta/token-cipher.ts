/**
 * Page access tokens at rest (CONTRACT.md section 8). In AWS: KMS Encrypt/Decrypt under the stack's
 * key, with the page id as encryption context. Locally (DynamoDB Local, no KMS): AES-256-GCM under a
 * local development key, with the page id as additional data. Either way a token sealed for one page
 * does not open for another, and the sealed text says which scheme sealed it.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { kmsSecretCipher, sealedSecretCipherFromEnvironment } from '../kms-sealed-secrets.ts';
import type { PageTokenCipher } from './pages.ts';
import { pageTokenScope, type SealScope } from '../sealed-secrets.ts';

export { KMS_SEALED_PREFIX, LOCAL_TOKEN_KEY, localCipherFromEnvironment, localTokenCipher, PAGE_TOKEN_KEY_ID, pageTokenScope, type SealScope } from '../sealed-secrets.ts';

export const kmsTokenCipher = (keyId: string, client?: KMSClient, scope: SealScope = pageTokenScope): PageTokenCipher => kmsSecretCipher(keyId, scope, client);

/** Page tokens' cipher: KMS when the stack's key is configured, the local key otherwise (never inside Lambda). */
export const pageTokenCipherFromEnvironment = (env: NodeJS.ProcessEnv = process.env, scope: SealScope = pageTokenScope): PageTokenCipher =>
  sealedSecretCipherFromEnvironment(env, scope);
