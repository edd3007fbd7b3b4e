/**
 * A client of the admin API as a CRM backend writes one (README "Connecting your CRM"): each request
 * signed with AWS Signature Version 4 for `execute-api`, then sent with fetch.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { DEFAULT_ADMIN_CREDENTIALS, NodeSha256, type AdminCredentials } from '../../scripts/local/admin-auth.ts';

export interface AdminClientOptions {
  readonly credentials?: AdminCredentials;
  readonly region?: string;
  readonly service?: string;
  /** Signs as if at this time (a stale signature). */
  readonly signingDate?: Date;
}

export interface AdminRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  /** Sends this body instead of the signed one (a body altered on the way). */
  readonly sentBody?: string;
  readonly headers?: Record<string, string>;
}

export const adminClient = (baseUrl: string, options: AdminClientOptions = {}) => {
  const url = new URL(baseUrl);
  return async ({ method, path, body, sentBody, headers = {} }: AdminRequest) => {
    const signer = new SignatureV4({
      credentials: options.credentials ?? DEFAULT_ADMIN_CREDENTIALS,
      region: options.region ?? 'ap-south-1',
      service: options.service ?? 'execute-api',
      sha256: NodeSha256,
    });
    const text = body === undefined ? undefined : JSON.stringify(body);
    const signed = await signer.sign(
      {
        method,
        protocol: url.protocol,
        hostname: url.hostname,
        port: Number(url.port),
        // The signer wants the query apart from the path (a page cursor, a reason).
        path: path.split('?')[0]!,
        query: Object.fromEntries(new URLSearchParams(path.split('?')[1] ?? '')),
        headers: { host: url.host, ...(text !== undefined && { 'content-type': 'application/json' }), ...headers },
        ...(text !== undefined && { body: text }),
      },
      options.signingDate ? { signingDate: options.signingDate } : {},
    );
    const response = await fetch(new URL(path, baseUrl), { method, headers: signed.headers, ...((sentBody ?? text) !== undefined && { body: sentBody ?? text }) });
    const answer = await response.text();
    return { status: response.status, headers: Object.fromEntries(response.headers), body: answer ? JSON.parse(answer) : undefined };
  };
};
