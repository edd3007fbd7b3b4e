/**
 * Calls through `npm start` as the README's "Calls to your project numbers" sets them up: a child
 * process on the run's DynamoDB Local (tables of its own) with the demo seed (a connected number and a calls
 * key), an Exotel Passthru GET with the key in its URL and a Knowlarity POST with the key in its
 * header becoming leads in `admin leads`, a call to a number not connected found in `admin
 * rejections`, and no key or caller number in what the service prints.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { bannerOf, killGroup, runsDatabase, spawnNpmStart, type StartedService } from '../support/processes.ts';

/** The run's DynamoDB Local, tables of this file's own: npm start and the admin CLI share them. */
const database = runsDatabase();

let service: StartedService;
let baseUrl: string;
let banner: string;
const KEY = 'demo-calls-key-please-change';

const admin = (...argv: string[]) => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...database };
  return execFileSync('npm', ['run', '--silent', 'admin', '--', ...argv], { cwd: projectRoot, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
};

const answerOf = async (response: Response) => ({ status: response.status, requestId: response.headers.get('x-request-id'), body: (await response.json()) as { status: boolean; message: string } });

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS', 'LEAD_INTAKE_SEED']) delete env[name];
  Object.assign(env, database);
  service = spawnNpmStart(projectRoot, env);
  banner = await bannerOf(service);
}, 60_000);

afterAll(() => {
  killGroup(service?.child.pid);
});

const callLeads = () => (JSON.parse(admin('leads', '--account', 'acc-demo', '--json')) as Record<string, unknown>[]).filter((lead) => lead.source === 'call');

describe('calls through npm start', () => {
  it('prints the call webhook in its banner, with its providers and the seed’s numbers', () => {
    expect(banner).toContain(`Call webhook:        ${baseUrl}/api/call-lead-webhook/{provider} (GET or POST, {provider} exotel, knowlarity or generic`);
    expect(banner).toContain('1 number(s) in the seed; npm run admin -- add-call-number)');
  });

  it('turns an Exotel Passthru GET (the key in its URL) into one lead, however often Exotel sends it', async () => {
    const query = new URLSearchParams({ CallSid: 'e2e-exotel-1', CallFrom: '"09876500051"', CallTo: '"08047181234"', CallType: 'call-attempt', DialCallDuration: '0', StartTime: '2026-11-22 21:10:05', key: KEY });
    const url = `${baseUrl}/api/call-lead-webhook/exotel?${query}`;
    const answers = await Promise.all([fetch(url).then(answerOf), fetch(url).then(answerOf), fetch(url).then(answerOf)]);
    expect(answers.map((answer) => [answer.status, answer.body])).toEqual(Array(3).fill([200, { status: true, message: 'Call received' }]));
    expect(callLeads().filter((lead) => lead.call_id === 'e2e-exotel-1')).toEqual([
      expect.objectContaining({
        name: 'Unknown caller',
        mobile_number: '9876500051',
        projectID: 'PRJ-1',
        campaignID: 'CMP-1',
        sub_source: 'exotel',
        call_number: '8047181234',
        call_outcome: 'missed',
        call_duration_seconds: 0,
        call_started_at: '2026-11-22T15:40:05.000Z',
      }),
    ]);
  });

  it('turns a Knowlarity POST (the key in its header) into a lead', async () => {
    const body = { callid: 'e2e-knowlarity-1', caller_id: '+919876500052', dispnumber: '+918047181234', call_duration: 64, call_type: 'Answered', start_time: '2026-11-22 21:12:30' };
    const answer = await answerOf(await fetch(`${baseUrl}/api/call-lead-webhook/knowlarity`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify(body) }));
    expect(answer).toEqual({ status: 200, requestId: expect.any(String), body: { status: true, message: 'Call received' } });
    expect(callLeads().filter((lead) => lead.call_id === 'e2e-knowlarity-1')).toEqual([expect.objectContaining({ mobile_number: '9876500052', sub_source: 'knowlarity', call_outcome: 'answered', call_duration_seconds: 64 })]);
  });

  it('keeps a call to a number not connected as a rejection in admin rejections, and a full key gets 403', async () => {
    const form = new URLSearchParams({ call_id: 'e2e-generic-1', caller_number: '9876500053', called_number: '8000000001' });
    const post = (query: string) => fetch(`${baseUrl}/api/call-lead-webhook/generic${query}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }).then(answerOf);
    // The key is read from the header or the query string, never from the body.
    expect(await post('')).toMatchObject({ status: 401, body: { message: 'API Key missing' } });
    expect(await post(`?key=${KEY}`)).toMatchObject({ status: 200, body: { message: 'Call received' } });
    expect(JSON.parse(admin('rejections', '--account', 'acc-demo', '--reason', 'call_number_not_connected', '--json'))).toContainEqual(
      expect.objectContaining({ endpoint: 'call', provider: 'generic', call_id: 'e2e-generic-1', reason: 'call_number_not_connected' }),
    );
    const full = await fetch(`${baseUrl}/api/call-lead-webhook/generic?key=demo-key-please-change`).then(answerOf);
    expect(full).toMatchObject({ status: 403, body: { status: false, message: 'API key not allowed on this endpoint' } });
    expect(await fetch(`${baseUrl}/api/call-lead-webhook/ozonetel?key=${KEY}`).then(answerOf)).toMatchObject({ status: 404, body: { message: 'Unknown call provider' } });
  });

  it('never prints a key or a caller’s number past the banner', () => {
    const after = service.output().slice(service.output().indexOf('Ctrl-C stops the service'));
    expect(after).not.toContain(KEY);
    expect(after).not.toContain('demo-key-please-change');
    for (const caller of ['9876500051', '9876500052', '9876500053']) expect(after).not.toContain(caller);
  });
});
