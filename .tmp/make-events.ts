import { writeFileSync, readFileSync } from 'node:fs';
import { signatureOf } from '../shared/meta/signature.ts';
import { LOCAL_META_APP_SECRET } from '../scripts/local/meta.ts';

const social = JSON.parse(readFileSync('events/social.json', 'utf8'));
const body = JSON.stringify({
  object: 'page',
  entry: [{ id: '108000000000001', time: 1795341600, changes: [{ field: 'leadgen', value: { leadgen_id: '1200000000000001', page_id: '108000000000001', form_id: '2200000000000001', ad_id: '23800000000000001', adgroup_id: '23800000000000002', created_time: 1795341590 } }] }],
});
const event = (file: string, n: number, signature: string) => {
  const e = structuredClone(social);
  e.routeKey = 'POST /api/meta-leadgen-webhook';
  e.rawPath = '/api/meta-leadgen-webhook';
  e.headers = {
    accept: '*/*',
    'content-length': String(Buffer.byteLength(body)),
    'content-type': 'application/json',
    host: 'localhost:3000',
    'user-agent': 'facebookexternalua',
    'x-amzn-trace-id': `Root=1-6740a3b2-0000000000000000000000${String(n).padStart(2, '0')}`,
    'x-forwarded-for': '173.252.127.1',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
    'x-hub-signature-256': signature,
  };
  e.requestContext.http.path = '/api/meta-leadgen-webhook';
  e.requestContext.http.sourceIp = '173.252.127.1';
  e.requestContext.http.userAgent = 'facebookexternalua';
  e.requestContext.requestId = `local-event-${String(n).padStart(4, '0')}`;
  e.requestContext.routeKey = 'POST /api/meta-leadgen-webhook';
  e.body = body;
  writeFileSync(`events/${file}`, `${JSON.stringify(e, null, 2)}\n`);
};
event('meta-leadgen.json', 10, signatureOf(body, LOCAL_META_APP_SECRET));
event('meta-bad-signature.json', 11, signatureOf(body, 'not-the-app-secret'));
