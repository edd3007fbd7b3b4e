/**
 * The local run's stand-in for the HTTP API's IAM authorization of the admin routes (CONTRACT.md
 * section 9): a request must carry an AWS Signature Version 4 (service `execute-api`) made with the
 * local admin credentials, dated within 5 minutes of now. It is checked the way AWS checks it: by
 * signing the request again, as received, with the same secret and date, and comparing signatures.
 * Anything else gets what the HTTP API answers, 403 `{"message":"Forbidden"}`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../../shared/aws/node-sha256.ts';

export { NodeSha256 };

export const ADMIN_SIGNING_SERVICE = 'execute-api';
/** How far `X-Amz-Date` may be from now, either way. */
export const SIGNATURE_WINDOW_MS = 5 * 60 * 1000;

export const adminCredentialSettings = {
  accessKeyId: 'LEAD_INTAKE_ADMIN_ACCESS_KEY_ID',
  secretAccessKey: 'LEAD_INTAKE_ADMIN_SECRET_ACCESS_KEY',
} as const;

/** Local only: documented, printed in the banner, and useless anywhere else. */
export const DEFAULT_ADMIN_CREDENTIALS = { accessKeyId: 'LOCALADMINKEY', secretAccessKey: 'local-admin-secret-not-for-aws' } as const;

export interface AdminCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export const adminCredentialsFrom = (env: NodeJS.ProcessEnv): AdminCredentials => ({
  accessKeyId: env[adminCredentialSettings.accessKeyId] || DEFAULT_ADMIN_CREDENTIALS.accessKeyId,
  secretAccessKey: env[adminCredentialSettings.secretAccessKey] || DEFAULT_ADMIN_CREDENTIALS.secretAccessKey,
});

export interface SignedRequest {
  readonly method: string;
  /** The path and query as received (still percent-encoded), e.g. `/admin/v1/accounts/acc-1?x=1`. */
  readonly url: string;
  /** Header names lower-cased; repeated headers joined with commas. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export interface SignatureCheckOptions {
  readonly credentials: AdminCredentials;
  /** The region a signature must name; any region when undefined. */
  readonly region?: string;
  readonly now?: () => number;
}

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/\s,]+)\/(\d{8})\/([^/\s,]+)\/([^/\s,]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;_.-]+),\s*Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

const sha256Hex = (body: Buffer) => createHash('sha256').update(body).digest('hex');

/** True when the request carries a valid signature of the local admin credentials. */
export const isSignedByAdmin = async (request: SignedRequest, { credentials, region, now = Date.now }: SignatureCheckOptions): Promise<boolean> => {
  const match = AUTHORIZATION.exec(request.headers.authorization ?? '');
  if (!match) return false;
  const [, accessKeyId, shortDate, signedRegion, service, signedHeaderList, signature] = match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId || service !== ADMIN_SIGNING_SERVICE) return false;
  if (region !== undefined && signedRegion !== region) return false;

  const signedHeaders = signedHeaderList!.split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) return false;
  const date = AMZ_DATE.exec(request.headers['x-amz-date'] ?? '');
  if (!date || !request.headers['x-amz-date']!.startsWith(shortDate!)) return false;
  const signingDate = new Date(Date.UTC(+date[1]!, +date[2]! - 1, +date[3]!, +date[4]!, +date[5]!, +date[6]!));
  if (Number.isNaN(signingDate.getTime()) || Math.abs(now() - signingDate.getTime()) > SIGNATURE_WINDOW_MS) return false;

  // A body hash in a header is what the signature covers: it must be the body's.
  const claimedHash = request.headers['x-amz-content-sha256'];
  if (claimedHash !== undefined && claimedHash !== sha256Hex(request.body)) return false;

  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) return false;
    headers[name] = value;
  }
  const url = new URL(request.url, 'http://localhost');
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const existing = query[name];
    query[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  const signer = new SignatureV4({ credentials, region: signedRegion!, service: ADMIN_SIGNING_SERVICE, sha256: NodeSha256, uriEscapePath: true, applyChecksum: false });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: headers.host!.replace(/:\d+$/, ''),
      path: request.url.split('?')[0]!,
      query,
      headers,
      ...(request.body.length > 0 && { body: request.body }),
    },
    { signingDate, signableHeaders: new Set(signedHeaders) },
  );
  const expected = /SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization ?? ''));
  if (!expected || expected[1] !== signedHeaderList) return false;
  return timingSafeEqual(Buffer.from(expected[2]!, 'hex'), Buffer.from(signature!, 'hex'));
};
