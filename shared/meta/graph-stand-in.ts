/**
 * A stand-in for Meta's Graph API on a laptop: `npm start` (and `npm run invoke -- meta`) serve it on
 * 127.0.0.1 when META_GRAPH_API_URL is unset, so a signed leadgen notification for the demo seed's page
 * becomes a lead with no Facebook app, page or network (CONTRACT section 8's promise that a signed POST
 * is followed by the lead in `admin leads`). It answers `GET /v26.0/{leadgen_id}` as Graph does for a
 * lead, after Graph's own checks of what the worker sends: an access token, and its appsecret_proof
 * keyed with the app secret (a wrong one answers Graph's error, so the worker's error path is real).
 * Every leadgen id is a lead: a demo person whose mobile number is made from the id's last nine
 * digits (so each id is a new person), on `fb`, with the ad names of a paid lead. Set
 * META_GRAPH_API_URL to read from the real Graph API (or another fake) instead.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GraphLead } from './graph.ts';
import { metaSecretSettings } from './secrets.ts';
import { metaSettings } from './settings.ts';
import { appSecretProof } from './signature.ts';

/** The version path the stand-in answers under, as the default Graph URL names one. */
export const STAND_IN_GRAPH_VERSION = 'v26.0';

const NAMES = ['Asha Verma', 'Ravi Kumar', 'Meera Iyer', 'Kabir Shah', 'Priya Nair', 'Arjun Mehta'];

/** The lead the stand-in serves for a leadgen id: the same every time it is read. */
export const standInLead = (leadgenId: string): GraphLead => {
  const digits = leadgenId.replace(/\D/g, '');
  const mobile = `9${digits.slice(-9).padStart(9, '0')}`;
  const name = NAMES[Number(digits.slice(-3) || '0') % NAMES.length]!;
  return {
    id: leadgenId,
    created_time: new Date().toISOString().replace(/\.\d{3}Z$/, '+0000'),
    field_data: [
      { name: 'full_name', values: [name] },
      { name: 'phone_number', values: [`+91${mobile}`] },
      { name: 'email', values: [`${name.split(' ')[0]!.toLowerCase()}.${mobile.slice(-4)}@example.com`] },
      { name: 'city', values: ['Pune'] },
      // The form's own questions, as real forms ask them: their answers go to notes (CONTRACT.md section 20).
      { name: 'budget', values: ['80L - 1 Cr'] },
      { name: 'preferred_location', values: ['Hinjewadi'] },
    ],
    platform: 'fb',
    campaign_name: 'Demo lead ads campaign',
    adset_name: 'Demo ad set',
    ad_name: 'Demo ad',
    is_organic: false,
  };
};

export interface GraphStandIn {
  /** The base URL to read leads from, version included (what META_GRAPH_API_URL holds). */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the stand-in on 127.0.0.1 (a free port unless `port` is given), checking proofs with `appSecret`. */
export const startGraphStandIn = async (appSecret: () => string, port = 0): Promise<GraphStandIn> => {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(body));
    };
    const [version, leadgenId, ...rest] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (request.method !== 'GET' || version !== STAND_IN_GRAPH_VERSION || !leadgenId || rest.length > 0) {
      return answer(400, { error: { message: 'Unsupported get request.', type: 'GraphMethodException', code: 100 } });
    }
    const token = url.searchParams.get('access_token');
    if (!token) return answer(400, { error: { message: 'An active access token must be used to query information about the current user.', type: 'OAuthException', code: 2500 } });
    if (url.searchParams.get('appsecret_proof') !== appSecretProof(token, appSecret())) {
      return answer(400, { error: { message: 'Invalid appsecret_proof provided in the API argument', type: 'GraphMethodException', code: 100 } });
    }
    return answer(200, standInLead(leadgenId));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/${STAND_IN_GRAPH_VERSION}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/**
 * Starts the stand-in when `env` names no Graph API, and points `env` at it; undefined otherwise.
 * Call after the local Meta defaults are applied (the app secret is read from `env` at each request).
 */
export const standInUnlessConfigured = async (env: NodeJS.ProcessEnv): Promise<GraphStandIn | undefined> => {
  if (env[metaSettings.graphApiUrl]) return undefined;
  const standIn = await startGraphStandIn(() => env[metaSecretSettings.appSecret] ?? '');
  env[metaSettings.graphApiUrl] = standIn.url;
  return standIn;
};
