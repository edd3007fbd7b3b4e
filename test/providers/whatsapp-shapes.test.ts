/**
 * WhatsApp Cloud API notifications as Meta publishes them (CONTRACT.md sections 15 and 20), each through
 * the webhook's handler against DynamoDB Local: its answer, what it stored, every mapped field. Text,
 * interactive replies, a template button, media, a reaction, an order and a click-to-WhatsApp referral
 * each make a lead; statuses, a system message and a change of errors store nothing; a username
 * sender leaves one whatsapp_number_withheld record, and a sender with both ids is read by `from`.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { whatsappTestService, type WhatsAppTestService } from '../support/whatsapp-service.ts';
import { shapeOf, shapesOf } from './shapes.ts';

let whatsapp: WhatsAppTestService;
const ACCOUNT = 'acc-wa-shapes';
const NUMBER = '990000000004242';

beforeAll(async () => {
  whatsapp = await whatsappTestService();
  await whatsapp.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] }, social: ['wp'] });
  await whatsapp.connectNumber(ACCOUNT, NUMBER, 'PRJ-1', 'CMP-1');
});

const sample = (name: string) => shapeOf('whatsapp', name).notification;
const messageOf = (name: string) => sample(name).entry[0].changes[0].value.messages?.[0];

/** Delivers the sample (signed as Meta signs it); what its message id stored. */
const delivered = async (name: string) => {
  const answer = await whatsapp.deliver(sample(name));
  const id = messageOf(name)?.id;
  const leads = (await whatsapp.leadsOf(ACCOUNT)).filter((lead) => id !== undefined && lead.whatsapp_message_id === id);
  const records = (await whatsapp.rejectionsOf(ACCOUNT)).filter((record) => id !== undefined && record.whatsapp_message_id === id);
  return { answer, leads, records };
};

const RECEIVED = { status: 200, body: { status: true, message: 'Notification received' } };
const lead = (mobile: string, name: string, notes: string, id: string) => ({
  name,
  mobile_number: mobile,
  source: 'social',
  sub_source: 'wp',
  platform: 'wp',
  projectID: 'PRJ-1',
  campaignID: 'CMP-1',
  notes,
  whatsapp_message_id: id,
  whatsapp_phone_number_id: NUMBER,
  is_repeated: false,
});

const LEADS: readonly (readonly [string, string, string, string])[] = [
  ['text', '9876500101', 'Priya Nair', 'Hi, is the 3 BHK in Tower B still available?'],
  ['interactive-button-reply', '9876500102', 'Rahul Mehta', 'Book a site visit'],
  ['interactive-list-reply', '9876500103', 'Sana Khan', '2 BHK'],
  ['button', '9876500104', 'Vikram Rao', 'Call me back'],
  ['media-image', '9876500105', 'Anita Desai', '[image]'],
  ['media-document', '9876500106', 'Karan Singh', '[document]'],
  ['media-audio', '9876500107', 'Deepa Iyer', '[audio]'],
  ['reaction', '9876500108', 'Arjun Pillai', '[reaction]'],
  ['order', '9876500109', 'Neha Gupta', '[order]'],
  ['unsupported', '9876500113', 'Farah Ali', '[unsupported]'],
  ['username-sender-with-number', '9876500114', 'Meena Joshi', 'Price of the 2 BHK?'],
];
const NOTHING_STORED = ['statuses', 'system', 'errors'];
const OWN_TESTS = ['referral-click-to-whatsapp', 'username-sender'];

describe("WhatsApp's published notification shapes", () => {
  it('are each run by a test here', () => {
    expect(shapesOf('whatsapp')).toEqual([...LEADS.map(([name]) => name), ...NOTHING_STORED, ...OWN_TESTS].sort());
  });

  it.each(LEADS)('a first message of %s is a lead of its sender, named by its contact, with its notes and ids', async (name, mobile, person, notes) => {
    const { answer, leads, records } = await delivered(name);
    expect(answer).toMatchObject(RECEIVED);
    expect(records).toEqual([]);
    expect(leads).toEqual([expect.objectContaining(lead(mobile, person, notes, messageOf(name).id))]);
    expect(leads[0]).not.toHaveProperty('whatsapp_ad_id');
  });

  it('a click-to-WhatsApp ad’s first message is a lead with its referral: type, ad id, https source URL, headline, ctwa_clid', async () => {
    const { answer, leads } = await delivered('referral-click-to-whatsapp');
    expect(answer).toMatchObject(RECEIVED);
    const { referral } = messageOf('referral-click-to-whatsapp');
    expect(leads).toEqual([
      expect.objectContaining({
        ...lead('9876500110', 'Imran Sheikh', 'Hello! Can I get more info on this?', messageOf('referral-click-to-whatsapp').id),
        whatsapp_referral_type: 'ad',
        whatsapp_ad_id: referral.source_id,
        whatsapp_source_url: referral.source_url,
        whatsapp_headline: referral.headline,
        ctwa_clid: referral.ctwa_clid,
      }),
    ]);
  });

  it.each(NOTHING_STORED)('a notification of %s is acknowledged and stores nothing', async (name) => {
    const before = { leads: (await whatsapp.leadsOf(ACCOUNT)).length, records: (await whatsapp.rejectionsOf(ACCOUNT)).length };
    expect(await whatsapp.deliver(sample(name))).toMatchObject(RECEIVED);
    expect({ leads: (await whatsapp.leadsOf(ACCOUNT)).length, records: (await whatsapp.rejectionsOf(ACCOUNT)).length }).toEqual(before);
  });

  it("a username sender's message (from_user_id, no from) is one whatsapp_number_withheld record, named by its contact, also when Meta sends it again", async () => {
    const first = await delivered('username-sender');
    const again = await delivered('username-sender');
    expect(first.answer).toMatchObject(RECEIVED);
    expect(again.answer).toMatchObject(RECEIVED);
    expect(again.leads).toEqual([]);
    expect(again.records).toEqual([
      expect.objectContaining({
        endpoint: 'whatsapp',
        reason: 'whatsapp_number_withheld',
        whatsapp_phone_number_id: NUMBER,
        fields: { name: 'skyline_fan', whatsapp_user_id: 'US.13491208655302741918', notes: 'Is there a clubhouse?' },
      }),
    ]);
  });
});
