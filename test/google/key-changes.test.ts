/**
 * A rotated or removed form's key answers 401 at once (CONTRACT.md section 10), even in a warm function
 * that cached the form for a long TTL: each write a delivery makes checks the form's key hash as the
 * container trusted it, in the same request (shared/dynamodb/connections.ts connectionGuardCheck), so
 * an old key stores nothing, neither a lead nor a rejection record, and costs no extra round trip.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { removeGoogleForm, rotateGoogleFormKey } from '../../shared/domain/google-forms.ts';
import { uniqueMobile } from '../support/service.ts';
import { googleLeadId, googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';

/** Far longer than any test: whatever the function cached stays cached unless it drops it itself. */
const LONG_TTL_SECONDS = 300;
const INVALID_KEY = { status: 401, body: { status: false, message: 'Invalid google_key' } };
const RECEIVED = { status: 200, body: { status: true, message: 'Lead received' } };

let google: GoogleTestService;
let formSequence = 47_000_000_000;

beforeAll(async () => {
  google = await googleTestService({ configCacheTtlSeconds: LONG_TTL_SECONDS });
  await google.seedAccount({ id: 'acc-keys', duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] } });
  await google.seedAccount({ id: 'acc-keys-ignore', duplicateSetting: 'ignore', projects: { 'PRJ-1': ['CMP-1'] } });
});

/** A form of the account, connected, and cached by a warm function through one accepted delivery. */
const cachedForm = async (accountId = 'acc-keys') => {
  const formId = String((formSequence += 1));
  const key = await google.connectForm(accountId, formId);
  expect(await google.deliver({ formId, key, columns: standardColumns(uniqueMobile()) })).toMatchObject(RECEIVED);
  return { formId, key };
};

/** What a Google lead id left behind in the account: its leads and its rejection records. */
const storedFor = async (accountId: string, leadId: string) => ({
  leads: (await google.leadsOf(accountId)).filter((lead) => lead.google_lead_id === leadId),
  rejections: (await google.rejectionsOf(accountId)).filter((rejection) => rejection.google_lead_id === leadId),
});
const NOTHING = { leads: [], rejections: [] };

describe('after rotate-google-form-key, in a function that cached the form', () => {
  it('answers the old key 401 at once and stores nothing; the new key stores the lead', async () => {
    const { formId, key: oldKey } = await cachedForm();
    const { key: newKey } = await rotateGoogleFormKey(google.formAdmin, formId);
    const leadId = googleLeadId();
    const columns = standardColumns(uniqueMobile());

    expect(await google.deliver({ leadId, formId, key: oldKey, columns })).toMatchObject(INVALID_KEY);
    expect(await storedFor('acc-keys', leadId)).toEqual(NOTHING);

    expect(await google.deliver({ leadId, formId, key: newKey!, columns })).toMatchObject(RECEIVED);
    expect((await storedFor('acc-keys', leadId)).leads).toHaveLength(1);
  });

  it('answers an old-key test lead 401 and records nothing; the new key records it', async () => {
    const { formId, key: oldKey } = await cachedForm();
    const { key: newKey } = await rotateGoogleFormKey(google.formAdmin, formId);
    const leadId = googleLeadId();
    const test = { leadId, formId, isTest: true, columns: standardColumns(uniqueMobile()) };

    expect(await google.deliver({ ...test, key: oldKey })).toMatchObject(INVALID_KEY);
    expect(await storedFor('acc-keys', leadId)).toEqual(NOTHING);

    expect(await google.deliver({ ...test, key: newKey! })).toMatchObject(RECEIVED);
    expect((await storedFor('acc-keys', leadId)).rejections).toEqual([expect.objectContaining({ reason: 'google_test_lead' })]);
  });

  it('answers an old-key lead that validation refuses 401, recording nothing', async () => {
    const { formId, key: oldKey } = await cachedForm();
    await rotateGoogleFormKey(google.formAdmin, formId);
    const leadId = googleLeadId();
    const columns = [{ column_id: 'PHONE_NUMBER', column_name: 'User Phone', string_value: '12345' }];
    expect(await google.deliver({ leadId, formId, key: oldKey, columns })).toMatchObject(INVALID_KEY);
    expect(await storedFor('acc-keys', leadId)).toEqual(NOTHING);
  });

  it('answers an old-key repeat 401 under merge, and an old-key duplicate 401 under ignore, storing nothing: never taken for a duplicate', async () => {
    for (const accountId of ['acc-keys', 'acc-keys-ignore']) {
      const { formId, key: oldKey } = await cachedForm(accountId);
      const mobile = uniqueMobile();
      const { key: newKey } = await rotateGoogleFormKey(google.formAdmin, formId);
      expect(await google.deliver({ formId, key: newKey!, columns: standardColumns(mobile) })).toMatchObject(RECEIVED);
      const leadId = googleLeadId();
      expect(await google.deliver({ leadId, formId, key: oldKey, columns: standardColumns(mobile) })).toMatchObject(INVALID_KEY);
      expect(await storedFor(accountId, leadId)).toEqual(NOTHING);
    }
  });

  it('drops the form it cached: the old key is then refused by a read of the form, without a write', async () => {
    const { formId, key: oldKey } = await cachedForm();
    await rotateGoogleFormKey(google.formAdmin, formId);
    expect(await google.deliver({ formId, key: oldKey, columns: standardColumns(uniqueMobile()) })).toMatchObject(INVALID_KEY);
    google.roundTrips.reset();
    expect(await google.deliver({ formId, key: oldKey, columns: standardColumns(uniqueMobile()) })).toMatchObject(INVALID_KEY);
    expect(google.roundTrips.commands()).toEqual(['GetItemCommand']);
  });
});

describe('after remove-google-form, in a function that cached the form', () => {
  it('answers its key 401 at once, storing neither a lead nor a test lead record', async () => {
    const { formId, key } = await cachedForm();
    await removeGoogleForm(google.formAdmin, formId);
    const leadId = googleLeadId();
    expect(await google.deliver({ leadId, formId, key, columns: standardColumns(uniqueMobile()) })).toMatchObject(INVALID_KEY);
    const testLeadId = googleLeadId();
    expect(await google.deliver({ leadId: testLeadId, formId, key, isTest: true, columns: standardColumns(uniqueMobile()) })).toMatchObject(INVALID_KEY);
    expect(await storedFor('acc-keys', leadId)).toEqual(NOTHING);
    expect(await storedFor('acc-keys', testLeadId)).toEqual(NOTHING);
  });

  it('answers 401 when the form was connected to another account meanwhile, storing nothing in either', async () => {
    const { formId, key } = await cachedForm();
    await removeGoogleForm(google.formAdmin, formId);
    await google.connectForm('acc-keys-ignore', formId);
    const leadId = googleLeadId();
    expect(await google.deliver({ leadId, formId, key, columns: standardColumns(uniqueMobile()) })).toMatchObject(INVALID_KEY);
    expect(await storedFor('acc-keys', leadId)).toEqual(NOTHING);
    expect(await storedFor('acc-keys-ignore', leadId)).toEqual(NOTHING);
  });
});

describe('an unchanged form, in a function that cached it', () => {
  /** The table and key of each ConditionCheck in the one request counted (as the SDK sent it). */
  const guardChecks = () =>
    (google.roundTrips.inputs() as { input: { TransactItems?: { ConditionCheck?: { TableName: string; Key: unknown } }[] } }[])
      .flatMap(({ input }) => input.TransactItems ?? [])
      .filter((item) => item.ConditionCheck)
      .map(({ ConditionCheck }) => ({ TableName: ConditionCheck!.TableName, Key: ConditionCheck!.Key }));

  it('stores a warm new lead in one TransactWriteItems, its guard inside it', async () => {
    const { formId, key } = await cachedForm();
    google.roundTrips.reset();
    expect(await google.deliver({ formId, key, columns: standardColumns(uniqueMobile()) })).toMatchObject(RECEIVED);
    expect(google.roundTrips.commands()).toEqual(['TransactWriteItemsCommand']);
    expect(guardChecks()).toEqual([{ TableName: google.tables.config, Key: { pk: `GOOGLEFORM#${formId}`, sk: 'GOOGLEFORM' } }]);
  });

  it('records a warm test lead in one TransactWriteItems, its guard inside it', async () => {
    const { formId, key } = await cachedForm();
    google.roundTrips.reset();
    expect(await google.deliver({ formId, key, isTest: true, columns: standardColumns(uniqueMobile()) })).toMatchObject(RECEIVED);
    expect(google.roundTrips.commands()).toEqual(['TransactWriteItemsCommand']);
    expect(guardChecks()).toEqual([{ TableName: google.tables.config, Key: { pk: `GOOGLEFORM#${formId}`, sk: 'GOOGLEFORM' } }]);
  });
});
