/**
 * A fake of Meta's Graph API for the tests: a local HTTP server that serves leads by leadgen id,
 * checks the page token and its appsecret_proof as Graph does, and fails on demand (5xx, an expired
 * token, a rate limit, a dropped connection). Every request is kept, so a test can prove nothing was read.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GraphLead } from '../../shared/meta/graph.ts';

export interface FakeLead {
  readonly pageToken: string;
  readonly lead: GraphLead;
}

export type Failure = 'server_error' | 'expired_token' | 'rate_limit' | 'permission' | 'drop';

export interface GraphRequest {
  readonly leadgenId: string;
  readonly accessToken: string | null;
  readonly proof: string | null;
  readonly fields: string | null;
  readonly answered: number;
}

export const fakeGraph = async (appSecret: string) => {
  const leads = new Map<string, FakeLead>();
  const failures = new Map<string, Failure[]>();
  const always = new Map<string, Failure>();
  const requests: GraphRequest[] = [];

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const leadgenId = decodeURIComponent(url.pathname.split('/').filter(Boolean).at(-1) ?? '');
    const accessToken = url.searchParams.get('access_token');
    const proof = url.searchParams.get('appsecret_proof');
    const answer = (status: number, body: unknown) => {
      requests.push({ leadgenId, accessToken, proof, fields: url.searchParams.get('fields'), answered: status });
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const failure = failures.get(leadgenId)?.shift() ?? always.get(leadgenId);
    if (failure === 'drop') {
      requests.push({ leadgenId, accessToken, proof, fields: url.searchParams.get('fields'), answered: 0 });
      return request.socket.destroy();
    }
    if (failure === 'server_error') return answer(500, { error: { message: 'An unexpected error has occurred.', type: 'OAuthException', code: 2, is_transient: true } });
    if (failure === 'rate_limit') return answer(400, { error: { message: 'Application request limit reached', type: 'OAuthException', code: 4 } });
    if (failure === 'permission') return answer(400, { error: { message: 'Unsupported get request.', type: 'GraphMethodException', code: 100, error_subcode: 33 } });
    if (failure === 'expired_token') {
      return answer(400, { error: { message: `Error validating access token: Session has expired (${accessToken}).`, type: 'OAuthException', code: 190, error_subcode: 463 } });
    }
    const stored = leads.get(leadgenId);
    if (!accessToken || !stored || stored.pageToken !== accessToken) {
      return answer(400, { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } });
    }
    if (proof !== createHmac('sha256', appSecret).update(accessToken).digest('hex')) {
      return answer(400, { error: { message: 'Invalid appsecret_proof provided in the API argument', type: 'GraphMethodException', code: 100 } });
    }
    return answer(200, stored.lead);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    /** Graph base with its version, as META_GRAPH_API_URL takes it. */
    url: `http://127.0.0.1:${port}/v26.0/`,
    requests,
    serve: (leadgenId: string, pageToken: string, lead: Omit<GraphLead, 'id'>) => void leads.set(leadgenId, { pageToken, lead: { id: leadgenId, ...lead } }),
    /** The next reads of a lead fail, in this order; then it is served. */
    failNext: (leadgenId: string, ...kinds: Failure[]) => void failures.set(leadgenId, [...(failures.get(leadgenId) ?? []), ...kinds]),
    failAlways: (leadgenId: string, kind: Failure) => void always.set(leadgenId, kind),
    readsOf: (leadgenId: string) => requests.filter((r) => r.leadgenId === leadgenId),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

export type FakeGraph = Awaited<ReturnType<typeof fakeGraph>>;

/** A Graph lead's field_data from plain fields. */
export const fieldData = (fields: Record<string, string>) => Object.entries(fields).map(([name, value]) => ({ name, values: [value] }));

/** A signed page notification with leadgen changes, as Meta sends it. */
export const leadgenNotification = (changes: readonly { pageId: string; leadgenId: string; formId?: string; field?: string }[]) => ({
  object: 'page',
  entry: [...new Set(changes.map((c) => c.pageId))].map((pageId) => ({
    id: pageId,
    time: 1_763_800_000,
    changes: changes
      .filter((c) => c.pageId === pageId)
      .map((c) => ({
        field: c.field ?? 'leadgen',
        value: { leadgen_id: c.leadgenId, page_id: pageId, ...(c.formId && { form_id: c.formId }), ad_id: '238400000000', adgroup_id: '238400000001', created_time: 1_763_799_990 },
      })),
  })),
});
