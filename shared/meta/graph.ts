/**
 * Reads a lead from Meta's Graph API (CONTRACT.md section 8) with the page's access token and
 * `appsecret_proof`, and sorts failures into what is retried (network, timeouts, 5xx, rate limits),
 * what is not (any other Graph error) and a refused token (OAuth code 190).
 */
import { GraphReadError } from './errors.ts';
import { appSecretProof } from './signature.ts';

export const DEFAULT_GRAPH_API_URL = 'https://graph.facebook.com/v26.0/';
export const GRAPH_LEAD_FIELDS = 'id,created_time,field_data,platform,form_id,campaign_name,adset_name,ad_name,is_organic';

/** A lead as Graph returns it (only what the mapping reads). */
export interface GraphLead {
  readonly id: string;
  readonly created_time?: string;
  readonly field_data?: readonly { readonly name?: string; readonly values?: readonly unknown[] }[];
  readonly platform?: string;
  readonly form_id?: string;
  readonly campaign_name?: string;
  readonly adset_name?: string;
  readonly ad_name?: string;
  readonly is_organic?: boolean;
}

export interface MetaLeadReader {
  readLead(leadgenId: string, accessToken: string): Promise<GraphLead>;
}

export interface GraphClientOptions {
  /** The Graph base including its version, e.g. https://graph.facebook.com/v26.0/ */
  readonly baseUrl: string;
  readonly appSecret: () => Promise<string>;
  /** Per request. */
  readonly timeoutMs?: number;
  /** Tries of a transient failure within one call, before it is left to the queue's back-off. */
  readonly attempts?: number;
  readonly retryDelayMs?: number;
  readonly fetch?: typeof fetch;
}

/** Graph error codes that mean "too many calls, later": application, user, page and ads rate limits. */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 341, 613]);
/** "Unknown error" and "service temporarily unavailable". */
const TRANSIENT_CODES = new Set([1, 2]);

interface GraphErrorBody {
  readonly error?: { readonly code?: number; readonly error_subcode?: number; readonly type?: string; readonly is_transient?: boolean };
}

export const graphLeadReader = ({ baseUrl, appSecret, timeoutMs = 5_000, attempts = 2, retryDelayMs = 300, fetch: send = fetch }: GraphClientOptions): MetaLeadReader => {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;

  const readOnce = async (leadgenId: string, accessToken: string): Promise<GraphLead> => {
    const url = new URL(encodeURIComponent(leadgenId), base);
    url.searchParams.set('access_token', accessToken);
    url.searchParams.set('appsecret_proof', appSecretProof(accessToken, await appSecret()));
    url.searchParams.set('fields', GRAPH_LEAD_FIELDS);
    let response: Response;
    let text: string;
    try {
      response = await send(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
      text = await response.text();
    } catch (error) {
      // Never the error's message: fetch's may quote the URL, and the URL holds the token.
      throw new GraphReadError('transient', { network: networkReason(error) });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.ok && typeof body === 'object' && body !== null && typeof (body as GraphLead).id === 'string') return body as GraphLead;
    throw classify(response.status, body as GraphErrorBody | undefined);
  };

  return {
    async readLead(leadgenId, accessToken) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await readOnce(leadgenId, accessToken);
        } catch (error) {
          const retryHere = error instanceof GraphReadError && error.kind === 'transient' && error.code === undefined && attempt < attempts;
          if (!retryHere) throw error;
          await new Promise((resolve) => setTimeout(resolve, retryDelayMs * attempt));
        }
      }
    },
  };
};

const classify = (status: number, body: GraphErrorBody | undefined): GraphReadError => {
  const error = body?.error;
  const details = {
    status,
    ...(typeof error?.code === 'number' && { code: error.code }),
    ...(typeof error?.error_subcode === 'number' && { subcode: error.error_subcode }),
    ...(typeof error?.type === 'string' && { type: error.type.slice(0, 100) }),
  };
  if (error?.code === 190) return new GraphReadError('token_refused', details);
  const rateLimited = status === 429 || (error?.code !== undefined && (RATE_LIMIT_CODES.has(error.code) || (error.code >= 80000 && error.code < 80100)));
  if (status >= 500 || rateLimited || error?.is_transient === true || (error?.code !== undefined && TRANSIENT_CODES.has(error.code))) {
    return new GraphReadError('transient', details);
  }
  return new GraphReadError('refused', details);
};

const networkReason = (error: unknown): string => {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'timeout';
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? code : 'network error';
};
