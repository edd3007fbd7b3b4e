/**
 * A connection removed or moved takes effect at once, whatever the cache (CONTRACT.md section 14): for
 * every source whose deliveries name a connection (a Google form, a call number), the first delivery
 * after the admin change stores no lead in the old project. Removed: answered as an unconnected form
 * or number. Moved: the lead lands in the new project and campaign. Each handler here is warm, with its
 * connection cached for the configuration cache's usual 30 s: the guard in the delivery's own write
 * (shared/dynamodb/connection-items.ts connectionGuardCheck) sees the change, and the handler reads the
 * connection afresh once (shared/domain/connection-cache.ts receivedAtOnce).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { callId, callWebhookOn, connectCallNumber, projectNumber, removeCallNumber } from '../support/call-service.ts';
import { connectGoogleForm, googleLeadId, googleTestService, removeGoogleForm, standardColumns, type GoogleTestService } from '../support/google-service.ts';
import { uniqueMobile } from '../support/service.ts';

/** The configuration cache's TTL as deployed: far longer than any test here. */
const CONFIG_CACHE_TTL_SECONDS = 30;
const PROJECTS = ['PRJ-1', 'PRJ-2'];
const LEAD_RECEIVED = { status: 200, body: { status: true, message: 'Lead received' } };
const INVALID_KEY = { status: 401, body: { status: false, message: 'Invalid google_key' } };
const CALL_RECEIVED = { status: 200, body: { status: true, message: 'Call received' } };

let google: GoogleTestService;
let calls: ReturnType<typeof callWebhookOn>;
let callsKey: string;
let formSequence = 49_000_000_000;

beforeAll(async () => {
  google = await googleTestService({ configCacheTtlSeconds: CONFIG_CACHE_TTL_SECONDS });
  calls = callWebhookOn(google, { configCacheTtlSeconds: CONFIG_CACHE_TTL_SECONDS });
  await google.seedAccount({ id: 'acc-moves', duplicateSetting: 'create', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  callsKey = await calls.callsKey('acc-moves');
});

const leadsOf = async (match: (lead: Record<string, unknown>) => boolean) => (await google.leadsOf('acc-moves', PROJECTS)).filter(match);
const recordsOf = async (match: (record: Record<string, unknown>) => boolean) => (await google.rejectionsOf('acc-moves')).filter(match);

describe('a Google form, in a function that cached it', () => {
  /** A form connected to PRJ-1 / CMP-1, and cached by the warm function through one accepted delivery. */
  const cachedForm = async () => {
    const formId = String((formSequence += 1));
    const key = await google.connectForm('acc-moves', formId);
    expect(await google.deliver({ formId, key, columns: standardColumns(uniqueMobile()) })).toMatchObject(LEAD_RECEIVED);
    return { formId, key };
  };
  const deliverLead = (formId: string, key: string, leadId = googleLeadId()) => google.deliver({ leadId, formId, key, columns: standardColumns(uniqueMobile()) }).then((answer) => ({ answer, leadId }));

  it('moved to another project: the first delivery after the move stores its lead in the new project and campaign', async () => {
    const { formId, key } = await cachedForm();
    await connectGoogleForm(google.formAdmin, { accountId: 'acc-moves', formId, projectId: 'PRJ-2', campaignId: 'CMP-2' });

    const { answer, leadId } = await deliverLead(formId, key);
    expect(answer).toMatchObject(LEAD_RECEIVED);
    expect(await leadsOf((lead) => lead.google_lead_id === leadId)).toEqual([expect.objectContaining({ projectID: 'PRJ-2', campaignID: 'CMP-2' })]);
  });

  it('moved, then back: each first delivery lands where the form points at that moment', async () => {
    const { formId, key } = await cachedForm();
    await connectGoogleForm(google.formAdmin, { accountId: 'acc-moves', formId, projectId: 'PRJ-2', campaignId: 'CMP-2' });
    const first = await deliverLead(formId, key);
    await connectGoogleForm(google.formAdmin, { accountId: 'acc-moves', formId, projectId: 'PRJ-1', campaignId: 'CMP-1' });
    const second = await deliverLead(formId, key);
    expect(await leadsOf((lead) => lead.google_lead_id === first.leadId)).toEqual([expect.objectContaining({ projectID: 'PRJ-2' })]);
    expect(await leadsOf((lead) => lead.google_lead_id === second.leadId)).toEqual([expect.objectContaining({ projectID: 'PRJ-1' })]);
  });

  it('moved: only the first delivery after the move reads the form again; the next one is warm again, one TransactWriteItems', async () => {
    const { formId, key } = await cachedForm();
    await connectGoogleForm(google.formAdmin, { accountId: 'acc-moves', formId, projectId: 'PRJ-2', campaignId: 'CMP-2' });
    google.roundTrips.reset();
    await deliverLead(formId, key);
    // The guarded write refused (nothing stored), the form read afresh, the write again.
    expect(google.roundTrips.commands()).toEqual(['TransactWriteItemsCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
    google.roundTrips.reset();
    expect((await deliverLead(formId, key)).answer).toMatchObject(LEAD_RECEIVED);
    expect(google.roundTrips.commands()).toEqual(['TransactWriteItemsCommand']);
  });

  it('removed: the first delivery after the removal answers as for an unconnected form, storing nothing', async () => {
    const { formId, key } = await cachedForm();
    await removeGoogleForm(google.formAdmin, formId);
    const { answer, leadId } = await deliverLead(formId, key);
    expect(answer).toMatchObject(INVALID_KEY);
    expect(await leadsOf((lead) => lead.google_lead_id === leadId)).toEqual([]);
    expect(await recordsOf((record) => record.google_lead_id === leadId)).toEqual([]);
  });
});

describe('a call number, in a function that cached it', () => {
  /** A number connected to PRJ-1 / CMP-1, and cached by the warm function through one call that became a lead. */
  const cachedNumber = async () => {
    const number = projectNumber();
    await calls.connectNumber('acc-moves', number);
    const id = callId();
    expect(await deliverCall(number, id)).toMatchObject(CALL_RECEIVED);
    expect(await leadsOf((lead) => lead.call_id === id)).toHaveLength(1);
    return number;
  };
  const deliverCall = (number: string, id: string, caller = uniqueMobile()) =>
    calls.deliver({ provider: 'generic', queryKey: callsKey, json: { call_id: id, caller_number: caller, called_number: number } });
  const moveNumber = (number: string, projectId: string, campaignId: string) => connectCallNumber(calls.numberAdmin, { accountId: 'acc-moves', number, projectId, campaignId });

  it('moved to another project: the first call after the move is a lead of the new project and campaign', async () => {
    const number = await cachedNumber();
    await moveNumber(number, 'PRJ-2', 'CMP-2');
    const id = callId();
    expect(await deliverCall(number, id)).toMatchObject(CALL_RECEIVED);
    expect(await leadsOf((lead) => lead.call_id === id)).toEqual([expect.objectContaining({ projectID: 'PRJ-2', campaignID: 'CMP-2', call_number: number })]);
  });

  it('moved, then back: each first call lands where the number points at that moment', async () => {
    const number = await cachedNumber();
    await moveNumber(number, 'PRJ-2', 'CMP-2');
    const first = callId();
    await deliverCall(number, first);
    await moveNumber(number, 'PRJ-1', 'CMP-1');
    const second = callId();
    await deliverCall(number, second);
    expect(await leadsOf((lead) => lead.call_id === first)).toEqual([expect.objectContaining({ projectID: 'PRJ-2' })]);
    expect(await leadsOf((lead) => lead.call_id === second)).toEqual([expect.objectContaining({ projectID: 'PRJ-1' })]);
  });

  it('removed: the first call after the removal is a call to a number not connected, and no lead', async () => {
    const number = await cachedNumber();
    await removeCallNumber(calls.numberAdmin, 'acc-moves', number);
    const id = callId();
    expect(await deliverCall(number, id)).toMatchObject(CALL_RECEIVED);
    expect(await leadsOf((lead) => lead.call_id === id)).toEqual([]);
    expect(await recordsOf((record) => record.call_id === id)).toEqual([expect.objectContaining({ reason: 'call_number_not_connected' })]);
  });

  it('removed: a call the number would have refused for its caller is refused for the number instead', async () => {
    const number = await cachedNumber();
    await removeCallNumber(calls.numberAdmin, 'acc-moves', number);
    const id = callId();
    expect(await deliverCall(number, id, 'anonymous')).toMatchObject(CALL_RECEIVED);
    expect(await recordsOf((record) => record.call_id === id)).toEqual([expect.objectContaining({ reason: 'call_number_not_connected' })]);
  });

  it('unchanged: a warm new call lead is one TransactWriteItems, the number checked inside it', async () => {
    const number = await cachedNumber();
    google.roundTrips.reset();
    expect(await deliverCall(number, callId())).toMatchObject(CALL_RECEIVED);
    expect(google.roundTrips.commands()).toEqual(['TransactWriteItemsCommand']);
    const checks = (google.roundTrips.inputs() as { input: { TransactItems?: { ConditionCheck?: { TableName: string; Key: unknown } }[] } }[])
      .flatMap(({ input }) => input.TransactItems ?? [])
      .filter((item) => item.ConditionCheck)
      .map(({ ConditionCheck }) => ({ TableName: ConditionCheck!.TableName, Key: ConditionCheck!.Key }));
    expect(checks).toEqual([{ TableName: google.tables.config, Key: { pk: 'CALLNUMBERS#acc-moves', sk: `NUMBER#${number}` } }]);
  });
});
