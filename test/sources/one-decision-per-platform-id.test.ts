/**
 * One platform id, one decision (CONTRACT.md section 14): for every webhook source, a platform id (a
 * Google `lead_id`, a call id of a provider) stores at most one lead or one rejection record, never
 * both, never two records, whether its deliveries come one after another or at once; the first
 * delivery decides. A refusal is kept under the id's claim, the one its lead would be stored under
 * (shared/domain/platform-leads.ts recordRefusal), by one function for every source.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { callId, callWebhookOn, projectNumber } from '../support/call-service.ts';
import { googleLeadId, googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';
import { uniqueMobile } from '../support/service.ts';
import { untilAnswered, type SentAnswer } from '../support/sender.ts';

const LEAD_RECEIVED = { status: 200, body: { status: true, message: 'Lead received' } };
const CALL_RECEIVED = { status: 200, body: { status: true, message: 'Call received' } };
/** A phone number no rule reads as a mobile: validation refuses the lead. */
const INVALID_PHONE = [{ column_id: 'FULL_NAME', column_name: 'Full Name', string_value: 'Asha Verma' }, { column_id: 'PHONE_NUMBER', column_name: 'User Phone', string_value: '12345' }];

let google: GoogleTestService;
let calls: ReturnType<typeof callWebhookOn>;
let formId: string;
let formKey: string;
let callsKey: string;
let number: string;

beforeAll(async () => {
  google = await googleTestService({ configCacheTtlSeconds: 30 });
  calls = callWebhookOn(google, { configCacheTtlSeconds: 30 });
  await google.seedAccount({ id: 'acc-ids', duplicateSetting: 'create', projects: { 'PRJ-1': ['CMP-1'] } });
  formId = String(50_000_000_000 + (Date.now() % 1_000_000));
  formKey = await google.connectForm('acc-ids', formId);
  callsKey = await calls.callsKey('acc-ids');
  number = projectNumber();
  await calls.connectNumber('acc-ids', number);
});

/** What one platform id left behind in the account: its leads and its rejection records. */
const storedFor = async (attribute: 'google_lead_id' | 'call_id', id: string) => ({
  leads: (await google.leadsOf('acc-ids')).filter((lead) => lead[attribute] === id),
  records: (await google.rejectionsOf('acc-ids')).filter((record) => record[attribute] === id),
});

/** Two deliveries one after another, then ten at once: twelve deliveries of one id. */
const twelveDeliveries = async <A extends SentAnswer>(deliver: () => Promise<A>): Promise<A[]> => {
  const answers = [await deliver(), await deliver()];
  answers.push(...(await Promise.all(Array.from({ length: 10 }, () => untilAnswered(deliver)))));
  return answers;
};

describe('a Google lead_id', () => {
  const deliver = (leadId: string, columns = standardColumns(uniqueMobile()), isTest = false) => google.deliver({ leadId, formId, key: formKey, columns, isTest });

  it('refused by validation, delivered 12 times (10 at once): 12 answers of 200 and one record', async () => {
    const leadId = googleLeadId();
    const answers = await twelveDeliveries(() => deliver(leadId, INVALID_PHONE));
    expect(answers).toEqual(Array(12).fill(expect.objectContaining(LEAD_RECEIVED)));
    expect(await storedFor('google_lead_id', leadId)).toEqual({ leads: [], records: [expect.objectContaining({ reason: 'validation' })] });
  });

  it('a test lead delivered 12 times (10 at once): one google_test_lead record', async () => {
    const leadId = googleLeadId();
    await twelveDeliveries(() => deliver(leadId, standardColumns(uniqueMobile()), true));
    expect(await storedFor('google_lead_id', leadId)).toEqual({ leads: [], records: [expect.objectContaining({ reason: 'google_test_lead' })] });
  });

  it('whose first delivery stored a lead never gets a record: a later refused delivery of it changes nothing', async () => {
    const leadId = googleLeadId();
    expect(await deliver(leadId)).toMatchObject(LEAD_RECEIVED);
    expect(await deliver(leadId, INVALID_PHONE)).toMatchObject(LEAD_RECEIVED);
    expect(await deliver(leadId, standardColumns(uniqueMobile()), true)).toMatchObject(LEAD_RECEIVED);
    const stored = await storedFor('google_lead_id', leadId);
    expect(stored.leads).toHaveLength(1);
    expect(stored.records).toEqual([]);
  });

  it('whose first delivery was refused never becomes a lead: a later valid delivery of it changes nothing', async () => {
    const leadId = googleLeadId();
    expect(await deliver(leadId, INVALID_PHONE)).toMatchObject(LEAD_RECEIVED);
    expect(await deliver(leadId)).toMatchObject(LEAD_RECEIVED);
    expect(await storedFor('google_lead_id', leadId)).toEqual({ leads: [], records: [expect.objectContaining({ reason: 'validation' })] });
  });

  it('delivered at once as a valid lead and as a refused one: one lead or one record, never both', async () => {
    const leadId = googleLeadId();
    await Promise.all(Array.from({ length: 10 }, (_, i) => untilAnswered(() => (i % 2 === 0 ? deliver(leadId) : deliver(leadId, INVALID_PHONE)))));
    const stored = await storedFor('google_lead_id', leadId);
    expect(stored.leads.length + stored.records.length).toBe(1);
  });
});

describe('a call id of a provider', () => {
  const deliver = (id: string, caller: string = uniqueMobile()) => calls.deliver({ provider: 'generic', queryKey: callsKey, json: { call_id: id, caller_number: caller, called_number: number } });

  it('refused for its caller, delivered 12 times (10 at once): 12 answers of 200 and one record', async () => {
    const id = callId();
    const answers = await twelveDeliveries(() => deliver(id, 'anonymous'));
    expect(answers).toEqual(Array(12).fill(expect.objectContaining(CALL_RECEIVED)));
    expect(await storedFor('call_id', id)).toEqual({ leads: [], records: [expect.objectContaining({ reason: 'validation' })] });
  });

  it('whose first delivery stored a lead never gets a record: a later refused delivery of it changes nothing', async () => {
    const id = callId();
    expect(await deliver(id)).toMatchObject(CALL_RECEIVED);
    expect(await deliver(id, 'anonymous')).toMatchObject(CALL_RECEIVED);
    const stored = await storedFor('call_id', id);
    expect(stored.leads).toHaveLength(1);
    expect(stored.records).toEqual([]);
  });

  it('whose first delivery was refused never becomes a lead: a later valid delivery of it changes nothing', async () => {
    const id = callId();
    expect(await deliver(id, 'anonymous')).toMatchObject(CALL_RECEIVED);
    expect(await deliver(id)).toMatchObject(CALL_RECEIVED);
    expect(await storedFor('call_id', id)).toEqual({ leads: [], records: [expect.objectContaining({ reason: 'validation' })] });
  });

  it('delivered at once as a valid call and as a refused one: one lead or one record, never both', async () => {
    const id = callId();
    await Promise.all(Array.from({ length: 10 }, (_, i) => untilAnswered(() => deliver(id, i % 2 === 0 ? uniqueMobile() : 'anonymous'))));
    const stored = await storedFor('call_id', id);
    expect(stored.leads.length + stored.records.length).toBe(1);
  });
});
