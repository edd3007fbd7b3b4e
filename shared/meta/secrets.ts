/**
 * The Meta app's secrets: the app secret (signatures, appsecret_proof) and the webhook verify token.
 * In AWS one Secrets Manager secret holds both as JSON `{"appSecret": ..., "verifyToken": ...}`, read
 * once per container and kept; locally META_APP_SECRET and META_VERIFY_TOKEN. Never logged.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { APP_SECRET_PLACEHOLDER, metaAppSecretSettings as metaSecretSettings } from '../meta-app.ts';

export interface MetaSecrets {
  readonly appSecret: string;
  readonly verifyToken: string;
}

// One Meta app serves Lead Ads and WhatsApp: its secrets' names are shared/meta-app.ts's.
export { APP_SECRET_PLACEHOLDER, metaAppSecretSettings as metaSecretSettings } from '../meta-app.ts';

/** A loader of the secrets that reads them once; a failed read is tried again on the next call. */
export const metaSecretsFromEnvironment = (env: NodeJS.ProcessEnv = process.env, client?: SecretsManagerClient): (() => Promise<MetaSecrets>) => {
  let loaded: Promise<MetaSecrets> | undefined;
  const load = async (): Promise<MetaSecrets> => {
    const arn = env[metaSecretSettings.secretArn];
    if (!arn) {
      const appSecret = env[metaSecretSettings.appSecret];
      const verifyToken = env[metaSecretSettings.verifyToken];
      if (!appSecret || !verifyToken) throw new Error(`${metaSecretSettings.appSecret} and ${metaSecretSettings.verifyToken} must be set`);
      return { appSecret, verifyToken };
    }
    // The parser's own message quotes the text it choked on: here, the secret. A fixed message instead.
    const parsedSecret = (text: string | undefined): Partial<MetaSecrets> => {
      try {
        const parsed: unknown = JSON.parse(text ?? '{}');
        return typeof parsed === 'object' && parsed !== null ? (parsed as Partial<MetaSecrets>) : {};
      } catch {
        throw new Error('the Meta secret is not JSON: it must hold {"appSecret": "...", "verifyToken": "..."} (its value is not shown)');
      }
    };
    const secrets = client ?? new SecretsManagerClient({ maxAttempts: 2, requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 } });
    const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
    const value = parsedSecret(SecretString);
    if (typeof value.appSecret !== 'string' || !value.appSecret || typeof value.verifyToken !== 'string' || !value.verifyToken) {
      throw new Error('the Meta secret must hold JSON with non-empty "appSecret" and "verifyToken"');
    }
    if (value.appSecret === APP_SECRET_PLACEHOLDER) throw new Error('the Meta app secret is not set yet: put the Meta app\'s App Secret in the secret (see README)');
    return { appSecret: value.appSecret, verifyToken: value.verifyToken };
  };
  return () => {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
};
