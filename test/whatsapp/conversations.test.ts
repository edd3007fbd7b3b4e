/**
 * Conversations and exactly once (CONTRACT.md section 15): a conversation's first message decides and
 * its later ones store nothing; a new ad's referral starts a new conversation, and so does a message
 * once the window has passed (times are the messages' own); a message id redelivered, or delivered 10
 * times at once, stores one lead or one record; messages of one conversation at once store at most one;
 * a second conversation's lead meets section 3's duplicates under each setting; a number no account
 * connected, or one removed, stores nothing.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { uniqueMobile } from '../support/service.ts';
import { change, fromOf, message, messageId, notification, phoneNumberId, whatsappTestService, type MessageParts, type WhatsAppTestService } from '../support/whatsapp-service.ts';
import { untilAnswered } from '../support/sender.ts';

/** A window of 60 seconds (a fraction of a day, as WHATSAPP_CONVERSATION_DAYS allows), crossed by the messages' own timestamps. */
const WINDOW_SECONDS = 60;
let whatsapp: WhatsAppTestService;
const numbers: Partial<Record<DuplicateSetting, string>> = {};

beforeAll(async () => {
  whatsapp = await whatsappTestService({ conversationDays: WINDOW_SECONDS / 86_400 });
  for (const setting of ['ignore', 'create', 'merge'] as const) {
    await whatsapp.seedAccount({ id: `acc-${setting}`, duplicateSetting: setting, projects: { 'PRJ-1': ['CMP-1'] }, social: ['wp'] });
    numbers[setting] = phoneNumberId();
    await whatsapp.connectNumber(`acc-${setting}`, numbers[setting]!);
  }
});

const send = (setting: DuplicateSetting, ...messages: MessageParts[]) => whatsapp.deliver(notification(change(numbers[setting]!, messages.map(message))));
const leadsOf = async (setting: DuplicateSetting, mobile: string) => (await whatsapp.leadsOf(`acc-${setting}`)).filter((lead) => lead.mobile_number === mobile);
const recordsOf = async (setting: DuplicateSetting, ids: readonly string[]) => (await whatsapp.rejectionsOf(`acc-${setting}`)).filter((record) => ids.includes(String(record.whatsapp_message_id)));
const now = () => Math.floor(Date.now() / 1000);

describe("a conversation's later messages", () => {
  it('store nothing: the first message decided', async () => {
    const mobile = uniqueMobile();
    const t = now();
    const firstId = messageId();
    await send('create', { id: firstId, from: fromOf(mobile), timestamp: t, text: 'Hi' });
    await send('create', { from: fromOf(mobile), timestamp: t + 5, text: 'Price?' }, { from: fromOf(mobile), timestamp: t + 6, type: 'image', extra: { image: { id: 'M1' } } });
    await send('create', { from: fromOf(mobile), timestamp: t + 30, type: 'button', extra: { button: { text: 'Visit' } } });
    expect((await leadsOf('create', mobile)).map((lead) => [lead.whatsapp_message_id, lead.notes])).toEqual([[firstId, 'Hi']]);
  });

  it('store nothing after a first message that was a record', async () => {
    const from = `4479${uniqueMobile().slice(2)}`;
    const t = now();
    const ids = [messageId(), messageId()];
    await send('create', { id: ids[0], from, timestamp: t });
    await send('create', { id: ids[1], from, timestamp: t + 1 });
    expect((await recordsOf('create', ids)).map((record) => record.whatsapp_message_id)).toEqual([ids[0]]);
  });

  it('store nothing when they repeat the referral that began the conversation', async () => {
    const mobile = uniqueMobile();
    const t = now();
    await send('create', { from: fromOf(mobile), timestamp: t, referral: { source_type: 'ad', source_id: 'AD-SAME' } });
    await send('create', { from: fromOf(mobile), timestamp: t + 2, referral: { source_type: 'ad', source_id: 'AD-SAME' } });
    expect(await leadsOf('create', mobile)).toHaveLength(1);
  });

  it('are later messages of the sender to that number only: another sender, or another number, starts its own', async () => {
    const [a, b] = [uniqueMobile(), uniqueMobile()];
    const t = now();
    await send('create', { from: fromOf(a), timestamp: t }, { from: fromOf(b), timestamp: t });
    await send('merge', { from: fromOf(a), timestamp: t + 1 });
    expect(await leadsOf('create', a)).toHaveLength(1);
    expect(await leadsOf('create', b)).toHaveLength(1);
    expect(await leadsOf('merge', a)).toHaveLength(1);
  });
});

describe('a new conversation', () => {
  it("starts with a new ad's referral (another source_id): its lead is the mobile's second, under the account's setting", async () => {
    const mobile = uniqueMobile();
    const t = now();
    await send('create', { from: fromOf(mobile), timestamp: t, referral: { source_type: 'ad', source_id: 'AD-1' } });
    await send('create', { from: fromOf(mobile), timestamp: t + 5, referral: { source_type: 'ad', source_id: 'AD-2' } });
    await send('create', { from: fromOf(mobile), timestamp: t + 6 });
    const leads = await leadsOf('create', mobile);
    expect(leads.map((lead) => [lead.whatsapp_ad_id, lead.is_repeated])).toEqual([
      ['AD-1', false],
      ['AD-2', true],
    ]);
  });

  it('starts with a referral after a conversation begun without one', async () => {
    const mobile = uniqueMobile();
    const t = now();
    await send('create', { from: fromOf(mobile), timestamp: t });
    await send('create', { from: fromOf(mobile), timestamp: t + 1, referral: { source_type: 'post', source_id: 'POST-1' } });
    expect((await leadsOf('create', mobile)).map((lead) => lead.whatsapp_ad_id)).toEqual([undefined, 'POST-1']);
  });

  it('does not start with a first message Meta delivers again after its next message opened the conversation: one tap, one lead', async () => {
    const mobile = uniqueMobile();
    const t = now();
    const first = { id: messageId(), from: fromOf(mobile), timestamp: t, referral: { source_type: 'ad', source_id: 'AD-LATE' } };
    // The first message's delivery failed (nothing stored); its next message arrives first and opens the conversation.
    await send('create', { from: fromOf(mobile), timestamp: t + 1 });
    await send('create', first);
    expect((await leadsOf('create', mobile)).map((lead) => [lead.whatsapp_ad_id, lead.is_repeated])).toEqual([[undefined, false]]);
  });

  it('starts once the window has passed, by the messages’ own timestamps (a redelivery keeps its time)', async () => {
    const mobile = uniqueMobile();
    const t = now() - 600;
    const inWindow = messageId();
    await send('create', { from: fromOf(mobile), timestamp: t });
    await send('create', { id: inWindow, from: fromOf(mobile), timestamp: t + WINDOW_SECONDS - 1 });
    await send('create', { from: fromOf(mobile), timestamp: t + WINDOW_SECONDS });
    // Delivered again long after the window, the in-window message is still one of the first conversation.
    await send('create', { id: inWindow, from: fromOf(mobile), timestamp: t + WINDOW_SECONDS - 1 });
    expect((await leadsOf('create', mobile)).map((lead) => lead.is_repeated)).toEqual([false, true]);
  });
});

describe("a second conversation's lead, under each duplicate setting (section 3)", () => {
  it.each([
    ['ignore', 'a duplicate_lead record'],
    ['create', 'a repeated lead with no parent'],
    ['merge', 'a repeated lead linked to the original'],
  ] as const)('under %s is %s', async (setting, _outcome) => {
    const mobile = uniqueMobile();
    const t = now() - 600;
    const second = messageId();
    await send(setting, { from: fromOf(mobile), timestamp: t });
    await send(setting, { id: second, from: fromOf(mobile), timestamp: t + WINDOW_SECONDS + 1 });
    const leads = await leadsOf(setting, mobile);
    if (setting === 'ignore') {
      expect(leads).toHaveLength(1);
      expect(await recordsOf(setting, [second])).toEqual([expect.objectContaining({ reason: 'duplicate_lead', endpoint: 'whatsapp', whatsapp_message_id: second, whatsapp_phone_number_id: numbers[setting] })]);
    } else {
      expect(leads.map((lead) => [lead.whatsapp_message_id === second, lead.is_repeated, lead.parent_lead_id])).toEqual([
        [false, false, null],
        [true, true, setting === 'merge' ? leads[0]!.id : null],
      ]);
    }
  });
});

describe('one message id, one lead or one record', () => {
  it('stores a redelivered message once, and holds its id for at least 8 days', async () => {
    const mobile = uniqueMobile();
    const id = messageId();
    const parts = { id, from: fromOf(mobile), referral: { source_type: 'ad', source_id: `AD-${id}` } };
    await send('create', parts);
    await send('create', parts);
    const leads = await leadsOf('create', mobile);
    expect(leads).toHaveLength(1);
    const { Items } = await whatsapp.client.send(
      new ScanCommand({
        TableName: whatsapp.tables.leads,
        FilterExpression: 'item_type = :type AND contains(#lead, :id)',
        ExpressionAttributeNames: { '#lead': 'lead' },
        ExpressionAttributeValues: { ':type': { S: 'idempotency_key' }, ':id': { S: leads[0]!.id } },
      }),
    );
    expect(Number(Items![0]!.expires_at!.N) - Date.parse(leads[0]!.created_at) / 1000).toBeGreaterThanOrEqual(8 * 24 * 60 * 60);
  });

  it.each([
    ['with a referral (straight to its write)', { referral: { source_type: 'ad', source_id: 'AD-TEN' } }],
    ['without one (its conversation read first)', {}],
  ])('stores a message delivered 10 times at once %s once', async (_case, extra) => {
    const mobile = uniqueMobile();
    const parts = { id: messageId(), from: fromOf(mobile), ...extra };
    const answers = await Promise.all(Array.from({ length: 10 }, () => untilAnswered(() => send('create', parts))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(await leadsOf('create', mobile)).toHaveLength(1);
  });

  it('records a refused message delivered 10 times at once once', async () => {
    const id = messageId();
    const answers = await Promise.all(Array.from({ length: 10 }, () => untilAnswered(() => send('ignore', { id, from: `4479${uniqueMobile().slice(2)}` }))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(await recordsOf('ignore', [id])).toHaveLength(1);
  });

  it('stores at most one lead for 10 messages of one conversation delivered at once', async () => {
    const mobile = uniqueMobile();
    const t = now();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => untilAnswered(() => send('merge', { from: fromOf(mobile), timestamp: t + i, text: `message ${i}` }))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(await leadsOf('merge', mobile)).toHaveLength(1);
  });

  it('stores at most one record for two messages of a withheld number’s conversation delivered at once', async () => {
    const ids = [messageId(), messageId()];
    const userId = `IN.${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    await Promise.all(ids.map((id) => send('ignore', { id, userId })));
    expect(await recordsOf('ignore', ids)).toHaveLength(1);
  });
});

describe('a number no account has connected', () => {
  it('stores nothing for its messages, and answers 200', async () => {
    const unknown = phoneNumberId();
    const mobile = uniqueMobile();
    const before = await whatsapp.rejectionsOf('acc-create');
    expect(await whatsapp.deliver(notification(change(unknown, [message({ from: fromOf(mobile) })])))).toMatchObject({ status: 200, body: { message: 'Notification received' } });
    expect(await leadsOf('create', mobile)).toEqual([]);
    expect(await whatsapp.rejectionsOf('acc-create')).toEqual(before);
  });

  it('is what a removed number becomes at once, whatever the cache: nothing stored for its later messages', async () => {
    const removed = phoneNumberId();
    await whatsapp.connectNumber('acc-create', removed);
    const [a, b] = [uniqueMobile(), uniqueMobile()];
    await whatsapp.deliver(notification(change(removed, [message({ from: fromOf(a) })])));
    expect(await leadsOf('create', a)).toHaveLength(1);
    expect(await whatsapp.removeNumber(removed)).toBe(true);
    expect((await whatsapp.deliver(notification(change(removed, [message({ from: fromOf(b) }), message({ from: `4479${uniqueMobile().slice(2)}` })])))).status).toBe(200);
    expect(await leadsOf('create', b)).toEqual([]);
  });
});
