/**
 * Meta's request signing: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>` keyed with
 * the app secret, and `appsecret_proof` (the HMAC of a token) on Graph API calls.
 */
import { createHmac } from 'node:crypto';

// The webhook signature is the Meta app's, shared with WhatsApp's webhook (shared/meta-app.ts).
export { isValidSignature, secretsEqual, signatureOf } from '../meta-app.ts';

/** Graph's `appsecret_proof`: hex HMAC-SHA256 of the access token, keyed with the app secret. */
export const appSecretProof = (accessToken: string, appSecret: string): string => createHmac('sha256', appSecret).update(accessToken, 'utf8').digest('hex');
