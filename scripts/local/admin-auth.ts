/**
 * The local run's stand-in for the HTTP API's IAM authorization of the admin routes (CONTRACT.md
 * section 9): a request must carry an AWS Signature Version 4 (service `execute-api`) made with the
 * local admin credentials, dated within 5 minutes of now. It is checked the way AWS checks it: by
 * signing the request again, as received, with the same secret and date, and comparing signatures.
 * Anything else gets what the HTTP API answers, 403 `{"message":"Forbidden"}`, and `npm start` logs one
 * line saying why (`describeRefusal`): AWS tells the caller nothing more, and a CRM developer whose
 * signer is wrong needs a clue. The line never holds a secret, a signature or a query value but the page
 * size and reason: a query may be a person's mobile number or e-mail.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../../shared/aws/node-sha256.ts';
import { redact } from '../../shared/log.ts';

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

/** Why a request's signature was refused, with nothing in it that could sign another request. */
export type SignatureRefusal =
  | { readonly kind: 'unsigned' }
  | { readonly kind: 'other-credentials' }
  | { readonly kind: 'other-service'; readonly service: string }
  | { readonly kind: 'other-region'; readonly region: string; readonly expected: string }
  | { readonly kind: 'headers-not-signed' }
  | { readonly kind: 'bad-date' }
  | { readonly kind: 'stale'; readonly skewSeconds: number }
  | { readonly kind: 'body-hash' }
  | { readonly kind: 'signed-header-missing'; readonly header: string }
  | {
      readonly kind: 'mismatch';
      /** What the service signed, query values redacted (`safeTarget`). */
      readonly expectedPath: string;
      readonly expectedQuery: string;
      readonly signedHeaders: string;
      /** The caller's mistake, when signing the request the wrong way reproduces its signature. */
      readonly cause?: 'query-in-path' | 'query-left-out';
    };

export type SignatureCheck = { readonly signed: true } | { readonly signed: false; readonly refusal: SignatureRefusal };

/** Query parameters whose values say nothing of a person: kept in the refusal's line. */
const SAFE_QUERY_PARAMETERS = new Set(['limit', 'reason']);

/** A query for a log line: its names, sorted as a canonical request sorts them, and only safe values. */
const safeQuery = (search: URLSearchParams): string =>
  [...search]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${redact(name)}=${SAFE_QUERY_PARAMETERS.has(name) ? redact(value) : '<redacted>'}`)
    .join('&');

/** A request target (path and query, as received) for a log line: no query value but the safe ones, no number or e-mail in the path. */
export const safeTarget = (url: string): string => {
  const parsed = new URL(url, 'http://localhost');
  const query = safeQuery(parsed.searchParams);
  return `${redact(url.split('?')[0]!)}${query ? `?${query}` : ''}`;
};

/** The line `npm start` logs for a refused admin request. */
export const describeRefusal = (refusal: SignatureRefusal): string => {
  switch (refusal.kind) {
    case 'unsigned':
      return 'no AWS Signature Version 4 (no Authorization header of the form AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...)';
    case 'other-credentials':
      return "signed with another access key id than the local admin credentials' (see the banner of npm start)";
    case 'other-service':
      return `signed for service "${refusal.service}", not "${ADMIN_SIGNING_SERVICE}"`;
    case 'other-region':
      return `signed for region "${refusal.region}", not "${refusal.expected}" (AWS_REGION of npm start)`;
    case 'headers-not-signed':
      return 'host and x-amz-date must both be signed headers';
    case 'bad-date':
      return "x-amz-date is missing, malformed, or not the credential scope's date";
    case 'stale':
      return `x-amz-date is ${refusal.skewSeconds} s from now, more than ${SIGNATURE_WINDOW_MS / 1000} s`;
    case 'body-hash':
      return 'x-amz-content-sha256 is not the SHA-256 of the body sent';
    case 'signed-header-missing':
      return `signed header "${refusal.header}" was not sent`;
    case 'mismatch': {
      const signedAs = `the service signed path ${refusal.expectedPath}, query "${refusal.expectedQuery}", headers ${refusal.signedHeaders}`;
      if (refusal.cause === 'query-in-path') {
        return `signature mismatch: the query was signed as part of the path; sign the path without it and pass the query apart (the signer's \`query\` object) (${signedAs})`;
      }
      if (refusal.cause === 'query-left-out') return `signature mismatch: the query was left out of the signature; pass it to the signer's \`query\` object (${signedAs})`;
      return `signature mismatch: check the secret, the body, and that path and query are signed apart, as sent (${signedAs})`;
    }
  }
};

const refused = (refusal: SignatureRefusal): SignatureCheck => ({ signed: false, refusal });

/** Whether the request carries a valid signature of the local admin credentials, and if not, why. */
export const checkAdminSignature = async (request: SignedRequest, { credentials, region, now = Date.now }: SignatureCheckOptions): Promise<SignatureCheck> => {
  const match = AUTHORIZATION.exec(request.headers.authorization ?? '');
  if (!match) return refused({ kind: 'unsigned' });
  const [, accessKeyId, shortDate, signedRegion, service, signedHeaderList, signature] = match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) return refused({ kind: 'other-credentials' });
  if (service !== ADMIN_SIGNING_SERVICE) return refused({ kind: 'other-service', service: service! });
  if (region !== undefined && signedRegion !== region) return refused({ kind: 'other-region', region: signedRegion!, expected: region });

  const signedHeaders = signedHeaderList!.split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) return refused({ kind: 'headers-not-signed' });
  const date = AMZ_DATE.exec(request.headers['x-amz-date'] ?? '');
  if (!date || !request.headers['x-amz-date']!.startsWith(shortDate!)) return refused({ kind: 'bad-date' });
  const signingDate = new Date(Date.UTC(+date[1]!, +date[2]! - 1, +date[3]!, +date[4]!, +date[5]!, +date[6]!));
  if (Number.isNaN(signingDate.getTime())) return refused({ kind: 'bad-date' });
  if (Math.abs(now() - signingDate.getTime()) > SIGNATURE_WINDOW_MS) return refused({ kind: 'stale', skewSeconds: Math.round(Math.abs(now() - signingDate.getTime()) / 1000) });

  // A body hash in a header is what the signature covers: it must be the body's.
  const claimedHash = request.headers['x-amz-content-sha256'];
  if (claimedHash !== undefined && claimedHash !== sha256Hex(request.body)) return refused({ kind: 'body-hash' });

  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) return refused({ kind: 'signed-header-missing', header: name });
    headers[name] = value;
  }
  const url = new URL(request.url, 'http://localhost');
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const existing = query[name];
    query[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  const path = request.url.split('?')[0]!;
  const signer = new SignatureV4({ credentials, region: signedRegion!, service: ADMIN_SIGNING_SERVICE, sha256: NodeSha256, uriEscapePath: true, applyChecksum: false });
  /** The signature of the request as received, its path and query signed as given here. */
  const signatureOf = async (signedPath: string, signedQuery: typeof query): Promise<string | undefined> => {
    const signed = await signer.sign(
      {
        method: request.method,
        protocol: 'http:',
        hostname: headers.host!.replace(/:\d+$/, ''),
        path: signedPath,
        query: signedQuery,
        headers,
        ...(request.body.length > 0 && { body: request.body }),
      },
      { signingDate, signableHeaders: new Set(signedHeaders) },
    );
    const expected = /SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization ?? ''));
    return expected && expected[1] === signedHeaderList ? expected[2] : undefined;
  };
  const isTheSignature = (candidate: string | undefined) => candidate !== undefined && timingSafeEqual(Buffer.from(candidate, 'hex'), Buffer.from(signature!, 'hex'));
  if (isTheSignature(await signatureOf(path, query))) return { signed: true };

  // Refused: the two mistakes a caller's signer makes with a query, tried so that the log can name them.
  const hasQuery = url.search.length > 1;
  const cause = !hasQuery
    ? undefined
    : isTheSignature(await signatureOf(request.url, {}))
      ? 'query-in-path'
      : isTheSignature(await signatureOf(path, {}))
        ? 'query-left-out'
        : undefined;
  return refused({
    kind: 'mismatch',
    expectedPath: redact(path),
    expectedQuery: safeQuery(url.searchParams),
    signedHeaders: signedHeaderList!,
    ...(cause && { cause }),
  });
};
