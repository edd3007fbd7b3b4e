/**
 * The Meta app's secrets: the app secret (signatures, appsecret_proof) and the webhook verify token.
 * In AWS one Secrets Manager secret holds both as JSON `{"appSecret": ..., "verifyToken": ...}`, read
 * once per container and kept; locally META_APP_SECRET and META_VERIFY_TOKEN. Never logged.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { metaAppSecretsFromEnvironment, type MetaAppSecrets } from '../meta-app.ts';

export type MetaSecrets = MetaAppSecrets;

// One Meta app serves Lead Ads and WhatsApp: its secrets' names and their loader are shared/meta-app.ts's.
export { APP_SECRET_PLACEHOLDER, metaAppSecretSettings as metaSecretSettings } from '../meta-app.ts';

/**
 * A loader of the secrets that reads them once; a failed read is tried again on the next call. Meta's
 * functions read the secret through the Secrets Manager client (one given, or their own), as they always have.
 */
export const metaSecretsFromEnvironment = (env: NodeJS.ProcessEnv = process.env, client?: SecretsManagerClient): (() => Promise<MetaSecrets>) =>
  metaAppSecretsFromEnvironment(env, async (arn) => {
    const secrets = client ?? new SecretsManagerClient({ maxAttempts: 2, requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 } });
    const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
    // An empty secret is one without its two values, as a JSON object without them would be.
    return SecretString ?? '{}';
  });
