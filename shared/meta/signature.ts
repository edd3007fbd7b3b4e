/**
 * Meta's request signing: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>` keyed with
 * the app secret, and `appsecret_proof` (the HMAC of a token) on Graph API calls.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

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
export const signatureOf = (rawBody: Buffer | string, appSecret: string): string =>
  `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;

/** Graph's `appsecret_proof`: hex HMAC-SHA256 of the access token, keyed with the app secret. */
export const appSecretProof = (accessToken: string, appSecret: string): string => createHmac('sha256', appSecret).update(accessToken, 'utf8').digest('hex');

/** Equality of two secrets in constant time (digests first, so lengths leak nothing either). */
export const secretsEqual = (given: string, expected: string): boolean =>
  expected !== '' && timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());
