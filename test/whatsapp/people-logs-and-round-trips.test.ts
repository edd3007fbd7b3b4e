/**
 * A WhatsApp sender's data and the webhook's costs (CONTRACT.md sections 12, 14 and 15): erasure takes
 * their lead and forgets their conversation (a redelivery of the erased lead's message stores nothing;
 * their next message starts anew); the log lines carry no text, name or part of the number; a warm new
 * lead costs one transaction, as a warm website lead does, and a later message at most one read.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { PersonData } from '../../shared/domain/person-data.ts';
import { uniqueMobile } from '../support/service.ts';
import { change, fromOf, message, messageId, notification, phoneNumberId, whatsappTestService, type MessageParts, type WhatsAppTestService } from '../support/whatsapp-service.ts';

let whatsapp: WhatsAppTestService;
let number: string;
const ACCOUNT = 'acc-wa-people';

beforeAll(async () => {
  whatsapp = await whatsappTestService();
  await whatsapp.seedAccount({ id: ACCOUNT, duplicateSetting: 'ignore', projects: { 'PRJ-1': ['CMP-1'] }, social: ['wp'] });
  number = phoneNumberId();
  await whatsapp.connectNumber(ACCOUNT, number);
});

const send = (messages: MessageParts[], names: Record<string, string> = {}, to = number) => whatsapp.deliver(notification(change(to, messages.map(message), names)));
const leadsOf = async (mobile: string) => (await whatsapp.leadsOf(ACCOUNT)).filter((lead) => lead.mobile_number === mobile);

describe("erasing a WhatsApp sender (section 12)", () => {
  it('takes their lead and forgets their conversation: a redelivery of its message stores nothing, their next message is a new original', async () => {
    const people = new PersonData(whatsapp.repository.accounts, whatsapp.repository.people);
    const mobile = uniqueMobile();
    const t = Math.floor(Date.now() / 1000);
    const first = { id: messageId(), from: fromOf(mobile), timestamp: t };
    await send([first]);
    expect((await people.access(ACCOUNT, { mobile_number: mobile })).leads).toHaveLength(1);

    expect(await people.erase(ACCOUNT, { mobile_number: mobile })).toEqual({ leads: 1, rejections: 0, alternate_numbers: 0 });
    expect((await send([first])).status).toBe(200);
    expect(await leadsOf(mobile)).toEqual([]);

    const next = messageId();
    await send([{ id: next, from: fromOf(mobile), timestamp: t + 10 }]);
    expect((await leadsOf(mobile)).map((lead) => [lead.whatsapp_message_id, lead.is_repeated])).toEqual([[next, false]]);
  });

  it('takes the records their messages left (a duplicate_lead of a second conversation) with them', async () => {
    const people = new PersonData(whatsapp.repository.accounts, whatsapp.repository.people);
    const mobile = uniqueMobile();
    await send([{ from: fromOf(mobile), referral: { source_type: 'ad', source_id: 'AD-1' } }]);
    await send([{ from: fromOf(mobile), referral: { source_type: 'ad', source_id: 'AD-2' } }]);
    const found = await people.access(ACCOUNT, { mobile_number: mobile });
    expect(found.rejections.map((record) => [record.reason, record.endpoint])).toEqual([['duplicate_lead', 'whatsapp']]);
    expect(await people.erase(ACCOUNT, { mobile_number: mobile })).toEqual({ leads: 1, rejections: 1, alternate_numbers: 0 });
    expect(await people.access(ACCOUNT, { mobile_number: mobile })).toEqual({ leads: [], rejections: [] });
  });
});

describe('the log lines (section 14)', () => {
  it('name the account and the outcome (an unconnected number by its id alone), never the text, the name or any part of the sender’s number', async () => {
    const mobile = uniqueMobile();
    const foreign = `4479${uniqueMobile().slice(2)}`;
    const unknown = phoneNumberId();
    const text = 'My budget is 95 lakh, call me at 98xxxxxx';
    whatsapp.logs.length = 0;
    await send([{ from: fromOf(mobile), text }, { from: fromOf(mobile), text: 'later' }, { from: foreign, text }], { [fromOf(mobile)]: 'Priya Venkataraman', [foreign]: 'Oliver Smith' });
    await send([{ from: fromOf(uniqueMobile()) }], {}, unknown);
    // The request's line counts its last message that was not ignored (a later message is decided already); a
    // message to a number no account has connected adds a line of its own, with the number's id alone.
    expect(whatsapp.logs.map((line) => [line.endpoint, line.status, line.outcome])).toEqual([
      ['whatsapp', 200, 'validation'],
      [undefined, undefined, undefined],
      ['whatsapp', 200, 'not_connected'],
    ]);
    expect(whatsapp.logs[0]).toMatchObject({ accountId: ACCOUNT });
    expect(whatsapp.logs[1]).toEqual({ level: 'warn', message: 'not connected', requestId: expect.any(String), connectionId: unknown });
    // What is left once the ids (digits of their own, which may share a run of digits with a test's number by chance) are set aside.
    const withoutIds = whatsapp.logs.map(({ connectionId: _number, requestId: _request, leadId: _lead, ...rest }) => JSON.stringify(rest));
    for (const line of withoutIds) {
      for (const secret of [mobile.slice(-4), mobile.slice(0, 5), foreign.slice(-4), 'budget', 'later', 'Priya', 'Oliver']) expect(line).not.toContain(secret);
    }
  });
});

describe('DynamoDB round trips of a warm container', () => {
  const warm = async () => send([{ from: fromOf(uniqueMobile()), referral: { source_type: 'ad', source_id: 'AD-WARM' } }]);
  const commandsOf = async (messages: MessageParts[]) => {
    whatsapp.roundTrips.reset();
    const answer = await send(messages);
    expect(answer.status).toBe(200);
    return whatsapp.roundTrips.commands();
  };

  it("stores a new click-to-WhatsApp lead in one transaction, as a warm website lead is (its conversation's claim inside it)", async () => {
    await warm();
    const mobile = uniqueMobile();
    expect(await commandsOf([{ from: fromOf(mobile), referral: { source_type: 'ad', source_id: 'AD-RT' } }])).toEqual(['TransactWriteItemsCommand']);
    const claims = whatsapp.roundTrips.inputs()[0]!.input.TransactItems.map((item: any) => item.Put?.Item).filter((item: any) => item?.item_type === 'delivery_claim');
    expect(claims).toHaveLength(1);
    // Keyed by a keyed hash of the sender, never the number.
    expect(JSON.stringify([claims[0].pk, claims[0].sk])).not.toContain(mobile);
  });

  it('spends at most one read on a later message of an open conversation, and writes nothing', async () => {
    await warm();
    const mobile = uniqueMobile();
    const t = Math.floor(Date.now() / 1000);
    await send([{ from: fromOf(mobile), timestamp: t }]);
    expect(await commandsOf([{ from: fromOf(mobile), timestamp: t + 1 }])).toEqual(['GetItemCommand']);
    expect(await commandsOf([{ from: fromOf(mobile), timestamp: t + 2, type: 'image', extra: { image: { id: 'M' } } }])).toEqual(['GetItemCommand']);
  });

  it('stores a first message without a referral (a brochure number) in one read of its conversation and one transaction', async () => {
    await warm();
    expect(await commandsOf([{ from: fromOf(uniqueMobile()) }])).toEqual(['GetItemCommand', 'TransactWriteItemsCommand']);
  });
});
