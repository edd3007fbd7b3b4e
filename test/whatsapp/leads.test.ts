/**
 * A conversation's first message as a lead (CONTRACT.md section 15): a social lead of platform and sub
 * source `wp` in the number's project and campaign, named from its contact's profile (or `WhatsApp
 * user`), its mobile from `from` (91 and an Indian mobile; any other number a `validation` record), its
 * notes the message's text (a button's, an interactive reply's, else the type in brackets), its
 * referral's fields within their bounds; a withheld number's first message a record the account sees;
 * an account without `wp` the sub source refusal's record; several messages of several senders, each
 * handled in order; the Lead Created event as for any lead.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLeadStreamReader, type LeadCreatedDelivery as DeliveredEvent, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import { waitFor } from '../support/processes.ts';
import { uniqueMobile } from '../support/service.ts';
import { change, fromOf, message, messageId, notification, phoneNumberId, whatsappTestService, type MessageParts, type WhatsAppTestService } from '../support/whatsapp-service.ts';

let whatsapp: WhatsAppTestService;
let number: string;
let withoutWp: string;
const ACCOUNT = 'acc-wa-leads';

beforeAll(async () => {
  whatsapp = await whatsappTestService();
  await whatsapp.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] }, social: ['wp', 'fb'] });
  await whatsapp.seedAccount({ id: 'acc-wa-nowp', projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb'] });
  number = phoneNumberId();
  withoutWp = phoneNumberId();
  await whatsapp.connectNumber(ACCOUNT, number, 'PRJ-2', 'CMP-2');
  await whatsapp.connectNumber('acc-wa-nowp', withoutWp);
});

/** Sends one message from a new sender (with a name by default); answers its lead, or undefined. */
const first = async (parts: Omit<MessageParts, 'id' | 'from'> & { from?: string; name?: string | null } = {}, to = number) => {
  const id = messageId();
  const from = parts.from ?? fromOf(uniqueMobile());
  const names = parts.name === null ? {} : { [from]: parts.name ?? 'Asha Rao' };
  const answer = await whatsapp.deliver(notification(change(to, [message({ ...parts, id, from })], names)));
  expect(answer).toMatchObject({ status: 200, body: { status: true, message: 'Notification received' } });
  const account = to === number ? ACCOUNT : 'acc-wa-nowp';
  const lead = (await whatsapp.leadsOf(account, ['PRJ-1', 'PRJ-2'])).find((candidate) => candidate.whatsapp_message_id === id);
  const record = (await whatsapp.rejectionsOf(account)).find((candidate) => candidate.whatsapp_message_id === id);
  return { id, from, lead, record };
};

describe("a conversation's first message", () => {
  it('is a social lead of platform and sub source wp, in the number’s project and campaign, with its ids', async () => {
    const { id, from, lead } = await first({ text: '  Is the 3 BHK still available?  ' });
    expect(lead).toMatchObject({
      name: 'Asha Rao',
      mobile_number: from.slice(2),
      source: 'social',
      sub_source: 'wp',
      platform: 'wp',
      projectID: 'PRJ-2',
      campaignID: 'CMP-2',
      notes: 'Is the 3 BHK still available?',
      whatsapp_message_id: id,
      whatsapp_phone_number_id: number,
      is_repeated: false,
      parent_lead_id: null,
    });
    expect(lead).not.toHaveProperty('whatsapp_ad_id');
  });

  it.each([
    ['a button reply', { type: 'button', extra: { button: { text: 'Book a site visit', payload: 'VISIT' } } }, 'Book a site visit'],
    ['an interactive button reply', { type: 'interactive', extra: { interactive: { type: 'button_reply', button_reply: { id: 'b1', title: 'Call me back' } } } }, 'Call me back'],
    ['an interactive list reply', { type: 'interactive', extra: { interactive: { type: 'list_reply', list_reply: { id: 'l1', title: '2 BHK', description: 'From 80 L' } } } }, '2 BHK'],
    ['an image', { type: 'image', extra: { image: { id: 'MEDIA-1', mime_type: 'image/jpeg' } } }, '[image]'],
    ['a location', { type: 'location', extra: { location: { latitude: 12.9, longitude: 77.6 } } }, '[location]'],
  ])('takes its notes from %s', async (_case, parts, notes) => {
    expect((await first(parts as MessageParts)).lead).toMatchObject({ notes });
  });

  it('cuts its text to 5,000 characters as notes', async () => {
    const { lead } = await first({ text: `${'a'.repeat(4_999)}🏠 and more` });
    expect(lead!.notes).toBe('a'.repeat(4_999));
  });

  it.each([
    ['no contact', null],
    ['an empty profile name', '   '],
  ])('is named WhatsApp user with %s', async (_case, name) => {
    expect((await first({ name })).lead).toMatchObject({ name: 'WhatsApp user' });
  });
});

describe("a message's referral (a click-to-WhatsApp ad or a post)", () => {
  it.each(['ad', 'post'])('keeps a %s referral’s type, id, https URL, headline and ctwa_clid', async (type) => {
    const { lead } = await first({
      referral: { source_url: 'https://fb.me/3cr4Wqqkn', source_id: '120212345678900123', source_type: type, headline: 'Skyline Towers: 2 & 3 BHK', body: 'Book now', media_type: 'image', ctwa_clid: 'ARAkLkA8rmlFeiCktEJQ' },
    });
    expect(lead).toMatchObject({
      whatsapp_referral_type: type,
      whatsapp_ad_id: '120212345678900123',
      whatsapp_source_url: 'https://fb.me/3cr4Wqqkn',
      whatsapp_headline: 'Skyline Towers: 2 & 3 BHK',
      ctwa_clid: 'ARAkLkA8rmlFeiCktEJQ',
    });
  });

  it('keeps a source URL of exactly 2,000 characters, and leaves out a longer one or one not https', async () => {
    const url = `https://example.com/${'p'.repeat(2_000 - 'https://example.com/'.length)}`;
    expect((await first({ referral: { source_type: 'ad', source_id: 'A1', source_url: url } })).lead).toMatchObject({ whatsapp_source_url: url });
    for (const other of [`${url}x`, 'http://example.com/ad', 'javascript:alert(1)', 'not a url']) {
      const { lead } = await first({ referral: { source_type: 'ad', source_id: 'A1', source_url: other } });
      expect(lead).toBeDefined();
      expect(lead).not.toHaveProperty('whatsapp_source_url');
    }
  });

  it('cuts the headline to 300 characters, and leaves out a type other than ad or post', async () => {
    const { lead } = await first({ referral: { source_type: 'story', source_id: 'A2', headline: 'h'.repeat(301) } });
    expect(lead!.whatsapp_headline).toBe('h'.repeat(300));
    expect(lead).not.toHaveProperty('whatsapp_referral_type');
    expect(lead).toMatchObject({ whatsapp_ad_id: 'A2' });
  });
});

describe('a first message that cannot be a lead', () => {
  it('from a number outside India is a validation record, which names no one', async () => {
    const { lead, record } = await first({ from: '447911123456' });
    expect(lead).toBeUndefined();
    expect(record).toMatchObject({ endpoint: 'whatsapp', reason: 'validation', whatsapp_phone_number_id: number });
    expect(record).not.toHaveProperty('mobile');
    expect(JSON.stringify(record)).not.toContain('447911123456');
  });

  it.each(['9198765', '91987654321000', '915876543210', '+919876543210'])('from %s (not 91 and an Indian mobile) is a validation record', async (from) => {
    const { lead, record } = await first({ from });
    expect(lead).toBeUndefined();
    expect(record).toMatchObject({ reason: 'validation' });
  });

  it('from a withheld number (a username: user_id, no from) is a whatsapp_number_withheld record with the user id', async () => {
    const id = messageId();
    await whatsapp.deliver(notification(change(number, [message({ id, userId: 'IN.13491208655302741918' })])));
    const record = (await whatsapp.rejectionsOf(ACCOUNT)).find((candidate) => candidate.whatsapp_message_id === id);
    expect(record).toMatchObject({ endpoint: 'whatsapp', reason: 'whatsapp_number_withheld', fields: { whatsapp_user_id: 'IN.13491208655302741918' }, whatsapp_phone_number_id: number });
  });

  it('from a username sender (from_user_id, no from, a contact of that user_id) is one whatsapp_number_withheld record, named by its contact', async () => {
    const id = messageId();
    const userId = `US.${id.slice(6, 26)}`;
    const body = notification({
      ...change(number, [message({ id, fromUserId: userId, text: 'Is there parking?' })]),
      value: { ...change(number, []).value, contacts: [{ profile: { name: '  Meera  ' }, user_id: userId }], messages: [message({ id, fromUserId: userId, text: 'Is there parking?' })] },
    });
    expect(await whatsapp.deliver(body)).toMatchObject({ status: 200, body: { message: 'Notification received' } });
    expect(await whatsapp.deliver(body)).toMatchObject({ status: 200 });
    const records = (await whatsapp.rejectionsOf(ACCOUNT)).filter((candidate) => candidate.whatsapp_message_id === id);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ endpoint: 'whatsapp', reason: 'whatsapp_number_withheld', fields: { whatsapp_user_id: userId, name: 'Meera', notes: 'Is there parking?' }, whatsapp_phone_number_id: number });
    // Its conversation is the username's: its next message stores nothing more.
    await whatsapp.deliver(notification(change(number, [message({ fromUserId: userId, text: 'Hello?' })])));
    expect((await whatsapp.rejectionsOf(ACCOUNT)).filter((candidate) => candidate.fields?.whatsapp_user_id === userId)).toHaveLength(1);
  });

  it('from a sender with both from and from_user_id is read by from: a lead of that mobile', async () => {
    const mobile = uniqueMobile();
    const { lead, record } = await first({ from: fromOf(mobile), extra: { from_user_id: 'US.98765432109876543210' } } as MessageParts);
    expect(record).toBeUndefined();
    expect(lead).toMatchObject({ mobile_number: mobile, name: 'Asha Rao' });
  });

  it('to an account without the wp social sub source is the sub source refusal’s record', async () => {
    const { lead, record } = await first({}, withoutWp);
    expect(lead).toBeUndefined();
    expect(record).toMatchObject({ endpoint: 'whatsapp', reason: 'sub_source_not_found', fields: { platform: 'wp' }, whatsapp_phone_number_id: withoutWp });
  });
});

describe('a notification of several messages', () => {
  it('handles each message of each change and entry on its own, in the order sent', async () => {
    const [a, b, c] = [uniqueMobile(), uniqueMobile(), uniqueMobile()];
    const ids = [messageId(), messageId(), messageId(), messageId()];
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        { id: 'WABA-1', changes: [change(number, [message({ id: ids[0], from: fromOf(a) }), message({ id: ids[1], from: fromOf(b) })], { [fromOf(a)]: 'A', [fromOf(b)]: 'B' })] },
        // A sender of its own: the foreign sender of the test above has a conversation open with this number.
        { id: 'WABA-1', changes: [change(number, [message({ id: ids[2], from: `4479${uniqueMobile().slice(2)}` }), message({ id: ids[3], from: fromOf(c) })], { [fromOf(c)]: 'C' })] },
      ],
    };
    expect((await whatsapp.deliver(body)).status).toBe(200);
    const leads = (await whatsapp.leadsOf(ACCOUNT, ['PRJ-2'])).filter((lead) => ids.includes(String(lead.whatsapp_message_id)));
    expect(leads.map((lead) => [lead.whatsapp_message_id, lead.name, lead.mobile_number])).toEqual([
      [ids[0], 'A', a],
      [ids[1], 'B', b],
      [ids[3], 'C', c],
    ]);
    expect((await whatsapp.rejectionsOf(ACCOUNT)).filter((record) => record.whatsapp_message_id === ids[2])).toHaveLength(1);
  });
});

describe('the Lead Created event of a WhatsApp lead', () => {
  let reader: LeadStreamReader;
  const events: DeliveredEvent[] = [];
  beforeAll(async () => {
    reader = await startLeadStreamReader({
      dynamodb: whatsapp.client,
      endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
      leadsTable: whatsapp.tables.leads,
      onEvent: (event) => events.push(event as DeliveredEvent),
      pollIntervalMs: 50,
    });
  }, 30_000);
  afterAll(async () => {
    await reader?.stop();
  });

  it('carries the whole stored lead, as for any lead', async () => {
    const { lead } = await first({ referral: { source_type: 'ad', source_id: 'AD-EV', ctwa_clid: 'clid-ev' } });
    await waitFor(() => events.some((event) => event.detail.lead.id === lead!.id), `the event of lead ${lead!.id}`, 10_000);
    const event = events.find((candidate) => candidate.detail.lead.id === lead!.id)!;
    expect(event).toMatchObject({ source: 'crm.lead-intake', 'detail-type': 'Lead Created' });
    expect(event.detail).toEqual({ account_id: ACCOUNT, lead });
  });
});
