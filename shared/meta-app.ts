/**
 * The Meta app, shared by the sources it serves (CONTRACT.md section 8's Lead Ads, section 15's
 * WhatsApp chats: one app, one App Secret, one verify token): how it signs a webhook delivery
 * (`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`), how a webhook answers its
 * subscription check, and the names of its secrets. No source's folder: each source's webhook imports
 * this, never another source's (test/sources/footprint.test.ts). Never logs a secret.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { refusal } from './domain/errors.ts';
import { readSecretString } from './person-keyring.ts';

/** The app's webhooks' refusals: a delivery not signed by the app (401), a subscription check with another token (403). */
export class InvalidSignatureError extends refusal(401, 'invalid_signature', 'Invalid signature') {}
export class WebhookVerificationFailedError extends refusal(403, 'verification_failed', 'Verification failed') {}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * True when the header is a SHA-256 signature of exactly these bytes under the app secret. Compared in
 * constant time over the digest bytes, so the answer's timing says nothing about how close a guess was.
 */
export const isValidSignature = (rawBody: Buffer, header: string | undefined, appSecret: string): boolean => {
  const match = header === undefined ? null : SIGNATURE.exec(header.trim());
  if (!match || !appSecret) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(match[1]!, 'hex'));
};

/** The signature header Meta would send for a body (tests, the sample event, `npm run invoke`). */
export const signatureOf = (rawBody: Buffer | string, appSecret: string): string => `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;

/** Equality of two secrets in constant time (digests first, so lengths leak nothing either). */
export const secretsEqual = (given: string, expected: string): boolean =>
  expected !== '' && timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());

/**
 * Meta's subscription check (`hub.mode=subscribe&hub.verify_token=T&hub.challenge=C`): the challenge to
 * answer as `text/plain`, or WebhookVerificationFailedError (403) for any other query.
 */
export const subscriptionChallenge = (query: URLSearchParams, verifyToken: string): string => {
  const challenge = query.get('hub.challenge');
  if (query.get('hub.mode') !== 'subscribe' || challenge === null || !secretsEqual(query.get('hub.verify_token') ?? '', verifyToken)) {
    throw new WebhookVerificationFailedError();
  }
  return challenge;
};

export interface MetaAppSecrets {
  readonly appSecret: string;
  readonly verifyToken: string;
}

/** Where the app's secrets are: one Secrets Manager secret in AWS (JSON of both), or each in the environment locally. */
export const metaAppSecretSettings = {
  /** ARN of the Secrets Manager secret (AWS). */
  secretArn: 'META_SECRET_ARN',
  appSecret: 'META_APP_SECRET',
  verifyToken: 'META_VERIFY_TOKEN',
} as const;

/**
 * What the stack writes as the app secret until an operator sets Meta's: a known value, so a webhook
 * refuses to work with it (500, which Meta retries) rather than accept signatures anyone could make.
 */
export const APP_SECRET_PLACEHOLDER = 'SET-ME: the App Secret of the Meta app (App settings > Basic)';

/**
 * A loader of the app's secrets that reads them once (a failed read is tried again on the next call),
 * through the signed request the lead functions already carry (person-keyring.ts), not the Secrets
 * Manager SDK client: a synchronous webhook's bundle stays within the lead path's budget.
 */
export const metaAppSecretsFromEnvironment = (env: NodeJS.ProcessEnv = process.env, readSecret: (arn: string, region: string) => Promise<string> = readSecretString): (() => Promise<MetaAppSecrets>) => {
  let loaded: Promise<MetaAppSecrets> | undefined;
  const load = async (): Promise<MetaAppSecrets> => {
    const arn = env[metaAppSecretSettings.secretArn];
    if (!arn) {
      const appSecret = env[metaAppSecretSettings.appSecret];
      const verifyToken = env[metaAppSecretSettings.verifyToken];
      if (!appSecret || !verifyToken) throw new Error(`${metaAppSecretSettings.appSecret} and ${metaAppSecretSettings.verifyToken} must be set`);
      return { appSecret, verifyToken };
    }
    let value: Partial<MetaAppSecrets>;
    try {
      const parsed: unknown = JSON.parse(await readSecret(arn, env.AWS_REGION ?? arn.split(':')[3]!));
      value = typeof parsed === 'object' && parsed !== null ? (parsed as Partial<MetaAppSecrets>) : {};
    } catch (error) {
      // The parser's own message quotes the text it choked on: here, the secret. A fixed message instead.
      if (error instanceof SyntaxError) throw new Error('the Meta secret is not JSON: it must hold {"appSecret": "...", "verifyToken": "..."} (its value is not shown)');
      throw error;
    }
    if (typeof value.appSecret !== 'string' || !value.appSecret || typeof value.verifyToken !== 'string' || !value.verifyToken) {
      throw new Error('the Meta secret must hold JSON with non-empty "appSecret" and "verifyToken"');
    }
    if (value.appSecret === APP_SECRET_PLACEHOLDER) throw new Error("the Meta app secret is not set yet: put the Meta app's App Secret in the secret (see README)");
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
