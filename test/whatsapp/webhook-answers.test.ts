/**
 * The WhatsApp webhook's answers (CONTRACT.md section 15), in its order of checks: the subscription
 * check; 413 over 3 MiB; 401 for a missing, malformed or wrong signature with nothing read; 400 for
 * signed text that is not JSON; 400 for an identifier over 200 characters with nothing of the
 * notification stored; 200 `Notification received` for what it ignores (another object, other fields,
 * statuses, system messages); 503 with Retry-After when the database is unavailable, and Meta's retry
 * then stores the message once.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { signatureOf } from '../../shared/meta-app.ts';
import { failFirst, injectFaults, namedError } from '../support/faults.ts';
import { uniqueMobile } from '../support/service.ts';
import {
  change,
  fromOf,
  message,
  messageId,
  notification,
  phoneNumberId,
  WHATSAPP_APP_SECRET,
  WHATSAPP_VERIFY_TOKEN,
  whatsappTestService,
  type WhatsAppTestService,
} from '../support/whatsapp-service.ts';

let whatsapp: WhatsAppTestService;
let number: string;
const ACCOUNT = 'acc-wa-answers';

beforeAll(async () => {
  whatsapp = await whatsappTestService();
  await whatsapp.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] }, social: ['wp'] });
  number = phoneNumberId();
  await whatsapp.connectNumber(ACCOUNT, number);
});

const RECEIVED = { status: true, message: 'Notification received' };
const stored = async () => ({ leads: await whatsapp.leadsOf(ACCOUNT), records: await whatsapp.rejectionsOf(ACCOUNT) });
const aNotification = (id = messageId(), mobile = uniqueMobile()) => notification(change(number, [message({ id, from: fromOf(mobile) })]));

describe("Meta's subscription check (GET)", () => {
  it('answers the challenge exactly, as text/plain, to the verify token', async () => {
    const answer = await whatsapp.request({ method: 'GET', rawQueryString: `hub.mode=subscribe&hub.verify_token=${WHATSAPP_VERIFY_TOKEN}&hub.challenge=1158201444` });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer.body).toBe('1158201444');
  });

  it.each([
    ['a wrong token', `hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`],
    ['another mode', `hub.mode=unsubscribe&hub.verify_token=${WHATSAPP_VERIFY_TOKEN}&hub.challenge=1`],
    ['no challenge', `hub.mode=subscribe&hub.verify_token=${WHATSAPP_VERIFY_TOKEN}`],
  ])('answers 403 to %s', async (_case, query) => {
    expect((await whatsapp.request({ method: 'GET', rawQueryString: query })).status).toBe(403);
  });
});

describe('the signature (X-Hub-Signature-256, the Meta app secret)', () => {
  it.each([
    ['missing', undefined],
    ['malformed', 'sha256=not-hex'],
    ['made with another secret', 'other-secret'],
  ])('refuses a notification whose signature is %s: 401, nothing read, nothing stored', async (_case, signature) => {
    const id = messageId();
    const rawBody = JSON.stringify(aNotification(id));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (signature === 'other-secret') headers['x-hub-signature-256'] = signatureOf(rawBody, 'not-the-app-secret');
    else if (signature !== undefined) headers['x-hub-signature-256'] = signature;
    whatsapp.roundTrips.reset();
    const answer = await whatsapp.request({ rawBody, headers });
    expect(answer).toMatchObject({ status: 401, body: { status: false, message: 'Invalid signature' } });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expect(whatsapp.roundTrips.count()).toBe(0);
    expect((await stored()).leads.filter((lead) => lead.whatsapp_message_id === id)).toEqual([]);
  });

  it('refuses a body signed as other bytes (the signature is over the raw body)', async () => {
    const rawBody = JSON.stringify(aNotification());
    const answer = await whatsapp.request({ rawBody: `${rawBody} `, headers: { 'x-hub-signature-256': signatureOf(rawBody, WHATSAPP_APP_SECRET) } });
    expect(answer.status).toBe(401);
  });

  it('answers 413 to a body over 3 MiB before the signature is checked', async () => {
    const rawBody = `{"object":"whatsapp_business_account","padding":"${'x'.repeat(3 * 1024 * 1024)}"}`;
    expect((await whatsapp.request({ rawBody, headers: {} })).status).toBe(413);
  });
});

describe('the body', () => {
  it('answers 400 Malformed JSON body to signed text that is not JSON', async () => {
    expect(await whatsapp.deliver('{"object": "whatsapp_business_account", ')).toMatchObject({ status: 400, body: { status: false, message: 'Malformed JSON body' } });
  });

  it.each([
    ['a message id', (long: string) => notification(change(number, [message({ from: fromOf(uniqueMobile()) }), message({ id: long, from: fromOf(uniqueMobile()) })]))],
    ['a phone number id', (long: string) => notification(change(number, [message({ from: fromOf(uniqueMobile()) })]), change(long, [message({ from: fromOf(uniqueMobile()) })]))],
    ['a ctwa_clid', (long: string) => notification(change(number, [message({ from: fromOf(uniqueMobile()) }), message({ from: fromOf(uniqueMobile()), referral: { source_type: 'ad', source_id: '1', ctwa_clid: long } })]))],
  ])('refuses %s over 200 characters with 400, storing nothing of the notification (not even its other messages)', async (_case, build) => {
    const before = await stored();
    const answer = await whatsapp.deliver(build('x'.repeat(201)));
    expect(answer.status).toBe(400);
    expect(answer.body.status).toBe(false);
    expect(await stored()).toEqual(before);
  });

  it('takes identifiers of exactly 200 characters', async () => {
    const id = `wamid.${'y'.repeat(194)}`;
    expect(await whatsapp.deliver(aNotification(id))).toMatchObject({ status: 200, body: RECEIVED });
    expect((await stored()).leads.filter((lead) => lead.whatsapp_message_id === id)).toHaveLength(1);
  });
});

describe('what the webhook acknowledges and ignores', () => {
  it.each([
    ['another object', () => ({ object: 'page', entry: [{ id: '1', changes: [{ field: 'leadgen', value: { leadgen_id: '1' } }] }] })],
    ['JSON that is not an object', () => [1, 2, 3]],
    ['a change of another field', () => notification({ field: 'account_update', value: { phone_number: '918047181234', event: 'VERIFIED_ACCOUNT' } })],
    [
      'statuses (receipts of what the business sent)',
      () => notification({ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: number }, statuses: [{ id: messageId(), status: 'delivered', timestamp: '1764300000', recipient_id: fromOf(uniqueMobile()) }] } }),
    ],
    ['a system message', () => notification(change(number, [{ ...message({ from: fromOf(uniqueMobile()), type: 'system' }), system: { body: 'User changed number' } }]))],
  ])('acknowledges %s with 200 Notification received, storing nothing', async (_case, build) => {
    const before = await stored();
    expect(await whatsapp.deliver(build())).toMatchObject({ status: 200, body: RECEIVED });
    expect(await stored()).toEqual(before);
  });
});

describe('a database outage', () => {
  it.each([
    ['the number read', 'GetItemCommand'],
    ['the lead write', 'TransactWriteItemsCommand'],
  ])('answers 503 with Retry-After when %s fails, and the retry stores the message once', async (_case, command) => {
    const faults = failFirst(command, 1_000, () => namedError('ThrottlingException'));
    const faulty = await whatsappTestService({ instrument: (client) => injectFaults(client, faults.fault), configCacheTtlSeconds: 0 });
    await faulty.seedAccount({ id: 'acc-down', projects: { 'PRJ-1': ['CMP-1'] }, social: ['wp'] });
    const down = phoneNumberId();
    await faulty.connectNumber('acc-down', down);
    const id = messageId();
    const body = notification(change(down, [message({ id, from: fromOf(uniqueMobile()), referral: { source_type: 'ad', source_id: 'AD-1' } })]));
    faults.arm();
    const answer = await faulty.deliver(body);
    faults.disarm();
    expect(answer).toMatchObject({ status: 503, body: { status: false, message: 'Service temporarily unavailable, please retry' } });
    expect(answer.headers['retry-after']).toEqual(expect.stringMatching(/^[1-9]\d*$/));
    expect(await faulty.leadsOf('acc-down')).toHaveLength(0);

    expect(await faulty.deliver(body)).toMatchObject({ status: 200, body: RECEIVED });
    expect(await faulty.deliver(body)).toMatchObject({ status: 200, body: RECEIVED });
    expect((await faulty.leadsOf('acc-down')).filter((lead) => lead.whatsapp_message_id === id)).toHaveLength(1);
  });
});
