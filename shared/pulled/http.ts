/**
 * The one way a reader reaches its portal (CONTRACT.md section 17): a request that fails as
 * `portal_unavailable` when the network fails or the portal has not answered within 20 seconds
 * (headers and body alike), and as `malformed_answer` when its body passes 10 MiB, counted as it
 * arrives, before anything parses it.
 */
import { MAX_ANSWER_BYTES, PORTAL_TIMEOUT_MS } from './wire-names.ts';
import { PortalFailure, type PortalAnswer, type PortalHttp } from './types.ts';

export interface PortalHttpOptions {
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
}

export const portalHttp = ({ timeoutMs = PORTAL_TIMEOUT_MS, maxBytes = MAX_ANSWER_BYTES }: PortalHttpOptions = {}): PortalHttp => ({
  async send({ url, method, headers, body }): Promise<PortalAnswer> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const response = await fetch(url, { method, ...(headers && { headers }), ...(body !== undefined && { body }), signal: abort.signal, redirect: 'manual' }).catch(
        (error: unknown) => {
          throw unavailable(abort.signal.aborted, error);
        },
      );
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (declared > maxBytes) {
        abort.abort();
        throw tooLarge(maxBytes);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      if (response.body) {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read().catch((error: unknown) => {
            throw unavailable(abort.signal.aborted, error);
          });
          if (done) break;
          size += value.byteLength;
          if (size > maxBytes) {
            abort.abort();
            await reader.cancel().catch(() => undefined);
            throw tooLarge(maxBytes);
          }
          chunks.push(value);
        }
      }
      return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: Buffer.concat(chunks).toString('utf8') };
    } finally {
      clearTimeout(timer);
    }
  },
});

const unavailable = (timedOut: boolean, error: unknown): PortalFailure =>
  error instanceof PortalFailure
    ? error
    : new PortalFailure('portal_unavailable', timedOut ? 'the portal did not answer within 20 seconds' : `the portal could not be reached (${errorCode(error)})`);

/** A network error's code (`ECONNRESET`, `ECONNREFUSED`), never its message (which may hold a URL with a key). */
const errorCode = (error: unknown): string => {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : 'network error';
};

const tooLarge = (maxBytes: number) => new PortalFailure('malformed_answer', `the answer was over ${Math.round(maxBytes / 1024 / 1024)} MiB`);

/** A non-2xx answer's failure: 401 the credential, 5xx the portal down, any other a refusal. */
export const statusFailure = (status: number): PortalFailure | undefined => {
  if (status >= 200 && status < 300) return undefined;
  if (status === 401) return new PortalFailure('credential_refused', `the portal refused the credential (HTTP ${status})`);
  if (status >= 500) return new PortalFailure('portal_unavailable', `the portal answered HTTP ${status}`);
  return new PortalFailure('portal_refused', `the portal answered HTTP ${status}`);
};
