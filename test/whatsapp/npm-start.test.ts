/**
 * WhatsApp chats through `npm start`, end to end: a child process on the run's DynamoDB
 * Local (tables of its own) and the demo seed (a connected WhatsApp number), Meta's subscription check, a signed
 * click-to-WhatsApp notification becoming a lead in `admin leads`, its redelivery and the chat's next
 * message storing nothing more, a message past the conversation window (WHATSAPP_CONVERSATION_DAYS,
 * small here) starting a new conversation, and no chat text, name or number in what the service prints.
 */
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { LOCAL_META_APP_SECRET, LOCAL_META_VERIFY_TOKEN } from '../../shared/meta-app-local.ts';
import { bannerOf, killGroup, runsDatabase, spawnNpmStart, type StartedService } from '../support/processes.ts';

/** The run's DynamoDB Local, tables of this file's own: npm start and the admin CLI share them. */
const database = runsDatabase();

let service: StartedService;
let baseUrl: string;
let banner: string;
/** The demo seed's number (seed/demo.json). */
const NUMBER = '106540352242922';
const MOBILE = '9876500071';
/** The window: 0.0001 days is 8.64 s of message time. */
const WINDOW_DAYS = '0.0001';
const FIRST_AT = 1_795_341_600;

const admin = (...argv: string[]) => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...database };
  return execFileSync('npm', ['run', '--silent', 'admin', '--', ...argv], { cwd: projectRoot, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
};

const notification = (id: string, timestamp: number, text: string, referral?: Record<string, string>) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '918047181234', phone_number_id: NUMBER },
            contacts: [{ profile: { name: 'Nisha Rao' }, wa_id: `91${MOBILE}` }],
            messages: [{ from: `91${MOBILE}`, id, timestamp: String(timestamp), type: 'text', text: { body: text }, ...(referral && { referral }) }],
          },
        },
      ],
    },
  ],
});

const post = async (body: unknown) => {
  const raw = JSON.stringify(body);
  const signature = `sha256=${createHmac('sha256', LOCAL_META_APP_SECRET).update(raw).digest('hex')}`;
  const response = await fetch(`${baseUrl}/api/whatsapp-webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body: raw });
  return { status: response.status, body: (await response.json()) as { status: boolean; message: string } };
};

const chatLeads = () => (JSON.parse(admin('leads', '--account', 'acc-demo', '--json')) as Record<string, unknown>[]).filter((lead) => lead.whatsapp_phone_number_id === NUMBER);
const chatRecords = () => (JSON.parse(admin('rejections', '--account', 'acc-demo', '--json')) as Record<string, unknown>[]).filter((record) => record.endpoint === 'whatsapp');

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), WHATSAPP_CONVERSATION_DAYS: WINDOW_DAYS };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS', 'LEAD_INTAKE_SEED', 'META_APP_SECRET', 'META_VERIFY_TOKEN']) delete env[name];
  Object.assign(env, database);
  service = spawnNpmStart(projectRoot, env);
  banner = await bannerOf(service);
}, 60_000);

afterAll(() => {
  killGroup(service?.child.pid);
});

describe('WhatsApp chats through npm start', () => {
  it('prints the WhatsApp webhook in its banner, with the seed’s numbers', () => {
    expect(banner).toContain(`WhatsApp webhook:    ${baseUrl}/api/whatsapp-webhook (GET subscription check, POST notifications signed with META_APP_SECRET`);
    expect(banner).toContain('1 number(s) in the seed; npm run admin -- add-whatsapp-number)');
  });

  it('answers Meta’s subscription check with the local verify token, and refuses another', async () => {
    const check = (token: string) => fetch(`${baseUrl}/api/whatsapp-webhook?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`);
    const answered = await check(LOCAL_META_VERIFY_TOKEN);
    expect([answered.status, await answered.text()]).toEqual([200, '1158201444']);
    expect((await check('another-token')).status).toBe(403);
  });

  it('turns a signed click-to-WhatsApp notification into one lead in admin leads; its redelivery and the chat’s next message store nothing more', async () => {
    const referral = { source_type: 'ad', source_id: '120210000000000077', source_url: 'https://fb.me/skyline-e2e', headline: 'Skyline Towers', ctwa_clid: 'ARAkLkA8rmlFeiCktEJQ-e2e' };
    const first = notification('wamid.e2e-first', FIRST_AT, 'Is the 3 BHK still available?', referral);
    expect(await post(first)).toEqual({ status: 200, body: { status: true, message: 'Notification received' } });
    const lead = {
      name: 'Nisha Rao',
      mobile_number: MOBILE,
      source: 'social',
      sub_source: 'wp',
      projectID: 'PRJ-1',
      campaignID: 'CMP-1',
      notes: 'Is the 3 BHK still available?',
      whatsapp_message_id: 'wamid.e2e-first',
      whatsapp_referral_type: 'ad',
      whatsapp_ad_id: '120210000000000077',
      whatsapp_source_url: 'https://fb.me/skyline-e2e',
      ctwa_clid: 'ARAkLkA8rmlFeiCktEJQ-e2e',
    };
    expect(chatLeads()).toEqual([expect.objectContaining(lead)]);
    // Meta's retry, and a second delivery of it at once.
    const again = await Promise.all([post(first), post(first)]);
    expect(again.map((answer) => answer.status)).toEqual([200, 200]);
    // The buyer writes again within the window.
    expect((await post(notification('wamid.e2e-second', FIRST_AT + 2, 'Can I visit on Sunday?'))).status).toBe(200);
    expect(chatLeads()).toEqual([expect.objectContaining(lead)]);
    expect(chatRecords()).toEqual([]);
    expect(admin('leads', '--account', 'acc-demo')).toContain('wp');
  });

  it('starts a new conversation past WHATSAPP_CONVERSATION_DAYS: the same buyer is then a duplicate under the demo account’s ignore', async () => {
    expect((await post(notification('wamid.e2e-later', FIRST_AT + 60, 'Still interested'))).status).toBe(200);
    expect(chatLeads()).toHaveLength(1);
    expect(chatRecords()).toEqual([expect.objectContaining({ reason: 'duplicate_lead', whatsapp_message_id: 'wamid.e2e-later', whatsapp_phone_number_id: NUMBER })]);
  });

  it('never prints the chat’s text, the buyer’s name or any part of their number past the banner', () => {
    const after = service.output().slice(service.output().indexOf('Ctrl-C stops the service'));
    for (const secret of [MOBILE, MOBILE.slice(-6), 'Nisha', '3 BHK', 'Sunday', LOCAL_META_APP_SECRET]) expect(after).not.toContain(secret);
  });
});
