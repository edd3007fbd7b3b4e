/**
 * A rotated or removed form's key answers 401 at once (CONTRACT.md section 10), even in a warm function
 * that cached the form for a long TTL: each write a delivery makes checks the form's key hash as the
 * container trusted it, in the same request (shared/dynamodb/connections.ts connectionGuardCheck), so
 * an old key stores nothing, neither a lead nor a rejection record, and costs no extra round trip.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { uniqueMobile } from '../support/service.ts';
import { applyGoogleForms, connectGoogleForm, hashGoogleFormKey, removeGoogleForm, rotateGoogleFormKey, googleLeadId, googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';

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
  await google.seedAccount({ id: 'acc-seeded', duplicateSetting: 'create', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
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

  it('stores nothing in the old account when the form is reconnected to another account with the same key', async () => {
    const { formId, key } = await cachedForm();
    await removeGoogleForm(google.formAdmin, formId);
    // The same key hash, another account: only the guard's account condition tells the two apart.
    expect(
      await google.googleForms.insertConnection({
        kind: 'google_form',
        id: formId,
        accountId: 'acc-keys-ignore',
        projectId: 'PRJ-1',
        campaignId: 'CMP-1',
        keyHash: hashGoogleFormKey(key),
        connectedAt: new Date().toISOString(),
      }),
    ).toBe(true);
    const leadId = googleLeadId();
    // The warm function still holds the old connection (acc-keys): its write must not land there. The
    // form is read again at once (CONTRACT.md section 14: a moved connection takes effect at once), it
    // is the other account's, and the same key stores there.
    expect(await google.deliver({ leadId, formId, key, columns: standardColumns(uniqueMobile()) })).toMatchObject(RECEIVED);
    expect((await storedFor('acc-keys-ignore', leadId)).leads).toHaveLength(1);
    expect(await storedFor('acc-keys', leadId)).toEqual(NOTHING);
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

describe('applying a seed again (npm start applies its seed at every start)', () => {
  let seedSequence = 48_000_000_000;
  const seeded = (key: string, projectId = 'PRJ-1', campaignId = 'CMP-1', formId = String((seedSequence += 1))) => ({
    accountId: 'acc-seeded',
    formId,
    key,
    projectId,
    campaignId,
  });
  const apply = (...forms: ReturnType<typeof seeded>[]) => applyGoogleForms(google.repository, forms);
  const deliverTo = async (formId: string, key: string) => {
    const leadId = googleLeadId();
    const answer = await google.deliver({ leadId, formId, key, columns: standardColumns(uniqueMobile()) });
    return { answer, leads: (await google.leadsOf('acc-seeded', ['PRJ-1', 'PRJ-2'])).filter((lead) => lead.google_lead_id === leadId) };
  };

  it('adds a form the store does not have, with the key the seed names', async () => {
    const form = seeded('seeded-key-one');
    await apply(form);
    const { answer, leads } = await deliverTo(form.formId, form.key);
    expect(answer).toMatchObject(RECEIVED);
    expect(leads).toHaveLength(1);
  });

  it('never brings back a rotated key: the old key stays refused, the new one works', async () => {
    const form = seeded('seeded-key-rotated');
    await apply(form);
    const { key: newKey } = await rotateGoogleFormKey(google.formAdmin, form.formId);
    await apply(form);
    const old = await deliverTo(form.formId, form.key);
    expect(old.answer).toMatchObject(INVALID_KEY);
    expect(old.leads).toEqual([]);
    expect((await deliverTo(form.formId, newKey!)).answer).toMatchObject(RECEIVED);
  });

  it('never brings back a removed form: its key stays refused and it stays out of the listing', async () => {
    const form = seeded('seeded-key-removed');
    await apply(form);
    await removeGoogleForm(google.formAdmin, form.formId);
    await apply(form);
    const { answer, leads } = await deliverTo(form.formId, form.key);
    expect(answer).toMatchObject(INVALID_KEY);
    expect(leads).toEqual([]);
    expect((await google.googleForms.listConnections('acc-seeded')).map((listed) => listed.id)).not.toContain(form.formId);
  });

  it("changes a stored form's project and campaign, never its key", async () => {
    const form = seeded('seeded-key-first');
    await apply(form);
    await apply({ ...form, key: 'seeded-key-edited', projectId: 'PRJ-2', campaignId: 'CMP-2' });
    expect((await deliverTo(form.formId, 'seeded-key-edited')).answer).toMatchObject(INVALID_KEY);
    const kept = await deliverTo(form.formId, form.key);
    expect(kept.answer).toMatchObject(RECEIVED);
    expect(kept.leads).toEqual([expect.objectContaining({ projectID: 'PRJ-2', campaignID: 'CMP-2' })]);
  });

  it('lets an operator connect a removed form again, with a new key', async () => {
    const form = seeded('seeded-key-reconnected');
    await apply(form);
    await removeGoogleForm(google.formAdmin, form.formId);
    const { form: connected } = await connectGoogleForm(google.formAdmin, { accountId: 'acc-seeded', formId: form.formId, projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect((await deliverTo(form.formId, connected.key!)).answer).toMatchObject(RECEIVED);
    expect((await deliverTo(form.formId, form.key)).answer).toMatchObject(INVALID_KEY);
  });
});
