/**
 * Meta leads made by the worker (CONTRACT.md section 8), from signed notifications through the
 * in-memory queue, against DynamoDB Local and a fake Graph API: the social endpoint's rules, one lead
 * per leadgen id, retries with back-off, and a rejection record for everything that stops a lead. A
 * redelivered notification stored once, simultaneous ones under each setting, and the database
 * stalling under the worker are every source's promises (test/sources/every-source.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { maskMobile } from '../../shared/log.ts';
import { cancelledTransactions, heldTogether, startFaultRelay, type FaultRelay } from '../support/fault-relay.ts';
import { injectFaults, namedError } from '../support/faults.ts';
import { fieldData, leadgenNotification } from '../support/fake-graph.ts';
import { APP_SECRET, metaTestService, VERIFY_TOKEN, type MetaTestService } from '../support/meta-service.ts';
import { uniqueMobile } from '../support/service.ts';
import { metaPagesOf } from '../../shared/meta/page-store.ts';
import { untilAnswered } from '../support/sender.ts';

let meta: MetaTestService;
/** Between the worker and DynamoDB Local: passes everything on, recording it, unless a test plans otherwise. */
let relay: FaultRelay;
let faultCount = 0;
const TOKENS = { ignore: 'EAAB-token-ignore-1', create: 'EAAB-token-create-2', merge: 'EAAB-token-merge-3', noIg: 'EAAB-token-noig-4' } as const;
const FORM = '3001';
const mapping = { [FORM]: { projectID: 'PRJ-1', campaignID: 'CMP-1' } };
let sequence = 7_000_000;
const nextLeadgenId = () => String((sequence += 1));

beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
  meta = await metaTestService({
    endpoint: relay.endpoint,
    configCacheTtlSeconds: 30,
    instrument: (client) =>
      injectFaults(client, (name) => {
        if (name !== 'TransactWriteItemsCommand' || faultCount === 0) return undefined;
        faultCount -= 1;
        return namedError('ServiceUnavailable', 'DynamoDB unavailable', { $metadata: { httpStatusCode: 503 } });
      }),
  });
  await meta.seedAccount({ id: 'acc-ignore', duplicateSetting: 'ignore', projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb', 'ig'] });
  await meta.seedAccount({ id: 'acc-create', duplicateSetting: 'create', projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb', 'ig'] });
  await meta.seedAccount({ id: 'acc-merge', duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb', 'ig'] });
  await meta.seedAccount({ id: 'acc-noig', projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb'] });
  await meta.connectPage('acc-ignore', '11', TOKENS.ignore, mapping);
  await meta.connectPage('acc-create', '12', TOKENS.create, mapping);
  await meta.connectPage('acc-merge', '13', TOKENS.merge, mapping);
  await meta.connectPage('acc-noig', '14', TOKENS.noIg, mapping);
});
afterAll(async () => {
  meta.queue.stop();
  await meta.graph.close();
  await relay.close();
});

const pages = { 'acc-ignore': '11', 'acc-create': '12', 'acc-merge': '13', 'acc-noig': '14' } as const;
type AccountId = keyof typeof pages;
const tokenOf = (account: AccountId) => TOKENS[({ 'acc-ignore': 'ignore', 'acc-create': 'create', 'acc-merge': 'merge', 'acc-noig': 'noIg' } as const)[account]];

/** A lead Graph will serve for the account's page, and the change that announces it. */
const metaLead = (account: AccountId, fields: Record<string, string> = {}, extra: Record<string, unknown> = {}) => {
  const leadgenId = nextLeadgenId();
  const mobile = fields.phone_number ?? uniqueMobile();
  meta.graph.serve(leadgenId, tokenOf(account), {
    platform: 'fb',
    form_id: FORM,
    field_data: fieldData({ full_name: 'Asha Verma', phone_number: mobile, ...fields }),
    ...extra,
  });
  return { leadgenId, mobile, change: { pageId: pages[account], leadgenId, formId: FORM } };
};

const deliver = async (...changes: { pageId: string; leadgenId: string; formId?: string }[]) => {
  const answer = await meta.notify(leadgenNotification(changes));
  expect(answer.status).toBe(200);
  await meta.queue.idle();
};

const leadOf = async (account: AccountId, leadgenId: string) => (await meta.leadsOf(account)).filter((lead) => lead.meta_leadgen_id === leadgenId);
const rejectionOf = async (account: AccountId, leadgenId: string) => (await meta.rejectionsOf(account)).filter((r) => r.meta_leadgen_id === leadgenId);

describe('a Meta lead becomes a social lead', () => {
  it('creates the leads of one notification with changes from pages of different accounts, each in its account', async () => {
    const a = metaLead('acc-ignore', { email: 'asha@example.com', city: 'Pune' }, { campaign_name: 'Diwali', adset_name: 'Pune 25-40', ad_name: 'Carousel 1' });
    const b = metaLead('acc-create', { full_name: 'Ravi Kumar' });
    const c = metaLead('acc-merge', { full_name: 'Meera Iyer' });
    await deliver(a.change, b.change, c.change);

    const [lead] = await leadOf('acc-ignore', a.leadgenId);
    expect(lead).toEqual({
      id: expect.any(String),
      name: 'Asha Verma',
      mobile_number: a.mobile,
      email: 'asha@example.com',
      projectID: 'PRJ-1',
      campaignID: 'CMP-1',
      source: 'social',
      sub_source: 'fb',
      platform: 'fb',
      location: 'Pune',
      social_campaign: 'Diwali',
      social_adset: 'Pune 25-40',
      social_ad: 'Carousel 1',
      meta_leadgen_id: a.leadgenId,
      meta_form_id: FORM,
      is_repeated: false,
      parent_lead_id: null,
      created_at: expect.any(String),
    });
    expect(Date.now() - Date.parse(lead!.created_at)).toBeLessThan(60_000);
    expect(await leadOf('acc-create', b.leadgenId)).toEqual([expect.objectContaining({ name: 'Ravi Kumar', source: 'social' })]);
    expect(await leadOf('acc-merge', c.leadgenId)).toEqual([expect.objectContaining({ name: 'Meera Iyer' })]);
    // Each page's token, each with its own proof.
    for (const { leadgenId } of [a, b, c]) expect(meta.graph.readsOf(leadgenId)).toEqual([expect.objectContaining({ answered: 200 })]);
  });

  it('reads the lead with the page token, appsecret_proof and the contract fields', async () => {
    const a = metaLead('acc-ignore');
    await deliver(a.change);
    const [read] = meta.graph.readsOf(a.leadgenId);
    expect(read!.accessToken).toBe(TOKENS.ignore);
    expect(read!.fields).toBe('id,created_time,field_data,platform,form_id,campaign_name,adset_name,ad_name,is_organic');
  });

  it('joins first_name and last_name when there is no full_name', async () => {
    const a = metaLead('acc-ignore', { full_name: '', first_name: 'Kabir', last_name: 'Shah' });
    await deliver(a.change);
    expect(await leadOf('acc-ignore', a.leadgenId)).toEqual([expect.objectContaining({ name: 'Kabir Shah' })]);
  });

  it('normalises the phone number as the social endpoint does', async () => {
    const digits = uniqueMobile();
    const a = metaLead('acc-ignore', { phone_number: `+91 ${digits.slice(0, 5)} ${digits.slice(5)}` });
    await deliver(a.change);
    expect((await leadOf('acc-ignore', a.leadgenId))[0]!.mobile_number).toBe(digits);
  });

  it('stores an Instagram lead with sub source ig, and an organic lead without ad names', async () => {
    const a = metaLead('acc-ignore', {}, { platform: 'ig', is_organic: true });
    await deliver(a.change);
    const [lead] = await leadOf('acc-ignore', a.leadgenId);
    expect(lead).toMatchObject({ sub_source: 'ig', platform: 'ig' });
    expect(lead).not.toHaveProperty('social_campaign');
  });

  it('takes the form from the Graph lead when the notification has none', async () => {
    const a = metaLead('acc-ignore');
    await deliver({ pageId: a.change.pageId, leadgenId: a.leadgenId });
    expect(await leadOf('acc-ignore', a.leadgenId)).toEqual([expect.objectContaining({ meta_form_id: FORM })]);
  });
});

describe('one lead per leadgen id', () => {
  it('stores one lead for two notifications of one leadgen id arriving together, under every duplicate setting', async () => {
    for (const account of ['acc-ignore', 'acc-create', 'acc-merge'] as const) {
      const a = metaLead(account);
      // The two deliveries' lead writes are held at the relay until both are there, then race.
      relay.clearSeen();
      relay.plan(heldTogether('TransactWriteItems', 2));
      await Promise.all([meta.notify(leadgenNotification([a.change])), meta.notify(leadgenNotification([a.change]))]);
      await meta.queue.idle();
      relay.heal();
      expect(relay.mostInFlight('TransactWriteItems')).toBeGreaterThanOrEqual(2);
      // One write won; DynamoDB cancelled the other on the leadgen id's claim.
      // (By token: a busy machine may make the SDK re-send one transaction.)
      expect(new Set(cancelledTransactions(relay.seen('TransactWriteItems')).map((request) => request.body.ClientRequestToken)).size).toBe(1);
      expect(await leadOf(account, a.leadgenId)).toHaveLength(1);
      expect(await rejectionOf(account, a.leadgenId)).toHaveLength(0);
    }
  });

  it('holds the leadgen id for more than 48 hours', async () => {
    const a = metaLead('acc-create');
    await deliver(a.change);
    const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
    const { createDocumentClient } = await import('../../shared/dynamodb/client.ts');
    const { Items = [] } = await createDocumentClient({ client: meta.client }).send(
      new ScanCommand({ TableName: meta.tables.leads, FilterExpression: 'item_type = :t', ExpressionAttributeValues: { ':t': 'idempotency_key' } }),
    );
    const [lead] = await leadOf('acc-create', a.leadgenId);
    const claim = Items.find((item) => String(item.lead).includes(lead!.id));
    expect(claim!.expires_at - Math.floor(Date.parse(lead!.created_at) / 1000)).toBeGreaterThanOrEqual(48 * 60 * 60);
  });
});

describe('one leadgen id, one lead or one record (CONTRACT.md section 14: the first delivery decides)', () => {
  /** Two notifications one after another, then ten at once: twelve deliveries of one change. */
  const twelveTimes = async (change: { pageId: string; leadgenId: string; formId?: string }) => {
    await deliver(change);
    await deliver(change);
    const answers = await Promise.all(Array.from({ length: 10 }, () => untilAnswered(() => meta.notify(leadgenNotification([change])))));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    await meta.queue.idle();
  };

  it('a refused lead (an invalid phone) notified 12 times, 10 at once: one record', async () => {
    const a = metaLead('acc-create', { phone_number: '12345' });
    await twelveTimes(a.change);
    expect(await leadOf('acc-create', a.leadgenId)).toHaveLength(0);
    expect(await rejectionOf('acc-create', a.leadgenId)).toEqual([expect.objectContaining({ reason: 'validation' })]);
  });

  it('an unmapped form notified 12 times, 10 at once: one record', async () => {
    const a = metaLead('acc-create');
    await twelveTimes({ ...a.change, formId: '3999' });
    expect(await rejectionOf('acc-create', a.leadgenId)).toEqual([expect.objectContaining({ reason: 'meta_form_not_mapped' })]);
  });

  it('a leadgen id whose first notification stored a lead gets no record when a later one is refused', async () => {
    const a = metaLead('acc-create');
    await deliver(a.change);
    await deliver({ ...a.change, formId: '3999' });
    expect(await leadOf('acc-create', a.leadgenId)).toHaveLength(1);
    expect(await rejectionOf('acc-create', a.leadgenId)).toEqual([]);
  });

  it('a leadgen id whose first notification was refused never becomes a lead', async () => {
    const a = metaLead('acc-create');
    await deliver({ ...a.change, formId: '3999' });
    await deliver(a.change);
    expect(await leadOf('acc-create', a.leadgenId)).toHaveLength(0);
    expect(await rejectionOf('acc-create', a.leadgenId)).toEqual([expect.objectContaining({ reason: 'meta_form_not_mapped' })]);
  });
});

describe('duplicates, under each setting', () => {
  it('ignore: a second Meta lead with the same mobile is not stored, and is recorded as duplicate_lead', async () => {
    const first = metaLead('acc-ignore');
    const second = metaLead('acc-ignore', { phone_number: first.mobile });
    await deliver(first.change);
    await deliver(second.change);
    expect(await leadOf('acc-ignore', second.leadgenId)).toHaveLength(0);
    expect(await rejectionOf('acc-ignore', second.leadgenId)).toEqual([
      expect.objectContaining({ endpoint: 'meta', reason: 'duplicate_lead', message: 'Lead already exists', mobile: maskMobile(first.mobile), fields: { projectID: 'PRJ-1' } }),
    ]);
  });

  it('create: stored as a repeat without a parent', async () => {
    const first = metaLead('acc-create');
    const second = metaLead('acc-create', { phone_number: first.mobile });
    await deliver(first.change);
    await deliver(second.change);
    expect(await leadOf('acc-create', second.leadgenId)).toEqual([expect.objectContaining({ is_repeated: true, parent_lead_id: null })]);
  });

  it('merge: stored as a repeat linked to the original, even one from the social endpoint', async () => {
    const mobile = uniqueMobile();
    const key = await meta.issueKey('acc-merge');
    const original = await meta.call('social', { apiKey: key, body: { name: 'Asha', mobile_number: mobile, projectID: 'PRJ-1', campaignID: 'CMP-1', platform: 'fb' } });
    expect(original.status).toBe(200);
    const second = metaLead('acc-merge', { phone_number: mobile });
    await deliver(second.change);
    const [originalLead] = (await meta.leadsOf('acc-merge')).filter((lead) => lead.mobile_number === mobile && !lead.is_repeated);
    expect(await leadOf('acc-merge', second.leadgenId)).toEqual([expect.objectContaining({ is_repeated: true, parent_lead_id: originalLead!.id })]);
  });
});

describe('what stops a Meta lead is recorded for its account', () => {
  it('an unmapped form: meta_form_not_mapped, and the lead is not even read', async () => {
    const a = metaLead('acc-ignore');
    await deliver({ ...a.change, formId: '3999' });
    expect(meta.graph.readsOf(a.leadgenId)).toHaveLength(0);
    expect(await rejectionOf('acc-ignore', a.leadgenId)).toEqual([
      expect.objectContaining({ endpoint: 'meta', reason: 'meta_form_not_mapped', meta_leadgen_id: a.leadgenId, fields: { page_id: '11', form_id: '3999' } }),
    ]);
  });

  it('an invalid phone: the field validation message, with the leadgen id', async () => {
    const a = metaLead('acc-ignore', { phone_number: '12345' });
    await deliver(a.change);
    expect(await leadOf('acc-ignore', a.leadgenId)).toHaveLength(0);
    expect(await rejectionOf('acc-ignore', a.leadgenId)).toEqual([
      expect.objectContaining({
        endpoint: 'meta',
        reason: 'validation',
        message: 'mobile_number must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9',
        fields: { mobile_number: ['mobile_number must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9'] },
        meta_leadgen_id: a.leadgenId,
      }),
    ]);
  });

  it('a phone that is not an Indian mobile: the record keeps no digit of it, since no erasure could find it by that number', async () => {
    const a = metaLead('acc-ignore', { phone_number: '+1 202 555 0100' });
    await deliver(a.change);
    const [record] = await rejectionOf('acc-ignore', a.leadgenId);
    expect(record).toMatchObject({ reason: 'validation', fields: { mobile_number: [expect.any(String)] } });
    expect(record).not.toHaveProperty('mobile');
  });

  it('a lead with no name: name is required', async () => {
    const a = metaLead('acc-ignore', { full_name: '' });
    await deliver(a.change);
    expect((await rejectionOf('acc-ignore', a.leadgenId))[0]).toMatchObject({ reason: 'validation', fields: { name: ['name is required'] } });
  });

  it('an Instagram lead for an account without ig: Sub source not found', async () => {
    const a = metaLead('acc-noig', {}, { platform: 'ig' });
    await deliver(a.change);
    expect(await leadOf('acc-noig', a.leadgenId)).toHaveLength(0);
    expect(await rejectionOf('acc-noig', a.leadgenId)).toEqual([
      expect.objectContaining({ reason: 'sub_source_not_found', message: 'Sub source not found', fields: { platform: 'ig' } }),
    ]);
  });

  it('a form mapped to a project the account no longer has: Project not found', async () => {
    await metaPagesOf(meta.repository).saveForm('acc-ignore', '11', '3002', { projectID: 'PRJ-GONE', campaignID: 'CMP-1' });
    const a = metaLead('acc-ignore');
    await deliver({ ...a.change, formId: '3002' });
    expect((await rejectionOf('acc-ignore', a.leadgenId))[0]).toMatchObject({ reason: 'project_not_found', fields: { projectID: 'PRJ-GONE' } });
  });

  it('an expired token: meta_token_refused at once, read once, never retried', async () => {
    const a = metaLead('acc-ignore');
    meta.graph.failAlways(a.leadgenId, 'expired_token');
    await deliver(a.change);
    expect(meta.graph.readsOf(a.leadgenId)).toHaveLength(1);
    expect(meta.queue.deadLetters.map((change) => change.leadgenId)).not.toContain(a.leadgenId);
    expect(await rejectionOf('acc-ignore', a.leadgenId)).toEqual([
      expect.objectContaining({ endpoint: 'meta', reason: 'meta_token_refused', fields: { page_id: '11', form_id: FORM, graph_status: 400, graph_code: 190, graph_subcode: 463, graph_type: 'OAuthException' } }),
    ]);
  });

  it('another Graph error (a lead Graph will not give): meta_graph_read_failed, not retried', async () => {
    const a = metaLead('acc-ignore');
    meta.graph.failAlways(a.leadgenId, 'permission');
    await deliver(a.change);
    expect(meta.graph.readsOf(a.leadgenId)).toHaveLength(1);
    expect(await rejectionOf('acc-ignore', a.leadgenId)).toEqual([expect.objectContaining({ reason: 'meta_graph_read_failed', fields: expect.objectContaining({ graph_code: 100 }) })]);
  });

  it('a page no account has: logged with its page id and counted, nothing read or recorded', async () => {
    const leadgenId = nextLeadgenId();
    await deliver({ pageId: '99999', leadgenId, formId: FORM });
    expect(meta.graph.readsOf(leadgenId)).toHaveLength(0);
    expect(meta.logs.find((line) => line.leadgenId === leadgenId)).toMatchObject({
      level: 'warn',
      message: 'meta leadgen for a page no account has',
      pageId: '99999',
      outcome: 'meta_page_not_configured',
      endpoint: 'meta',
      status: 404,
    });
  });
});

describe('retries', () => {
  it('retries Graph 500s with back-off, then creates the lead once', async () => {
    const a = metaLead('acc-ignore');
    meta.graph.failNext(a.leadgenId, 'server_error', 'server_error', 'drop');
    await deliver(a.change);
    expect(meta.graph.readsOf(a.leadgenId).map((read) => read.answered)).toEqual([500, 500, 0, 200]);
    expect(await leadOf('acc-ignore', a.leadgenId)).toHaveLength(1);
    expect(await rejectionOf('acc-ignore', a.leadgenId)).toHaveLength(0);
  });

  it('retries a Graph rate limit through the queue', async () => {
    const a = metaLead('acc-ignore');
    meta.graph.failNext(a.leadgenId, 'rate_limit');
    await deliver(a.change);
    expect(meta.graph.readsOf(a.leadgenId).map((read) => read.answered)).toEqual([400, 200]);
    expect(await leadOf('acc-ignore', a.leadgenId)).toHaveLength(1);
  });

  it('records meta_graph_read_failed when the retries run out, and leaves the change on the dead-letter queue', async () => {
    const a = metaLead('acc-ignore');
    meta.graph.failAlways(a.leadgenId, 'server_error');
    await deliver(a.change);
    expect(await leadOf('acc-ignore', a.leadgenId)).toHaveLength(0);
    expect(await rejectionOf('acc-ignore', a.leadgenId)).toEqual([
      expect.objectContaining({ reason: 'meta_graph_read_failed', fields: expect.objectContaining({ graph_status: 500 }), meta_leadgen_id: a.leadgenId }),
    ]);
    expect(meta.queue.deadLetters.map((change) => change.leadgenId)).toContain(a.leadgenId);
  });

  it('retries while DynamoDB is unavailable, then stores the lead once', async () => {
    const a = metaLead('acc-create');
    faultCount = 2;
    await deliver(a.change);
    expect(faultCount).toBe(0);
    expect(await leadOf('acc-create', a.leadgenId)).toHaveLength(1);
    expect(meta.logs.filter((line) => line.leadgenId === a.leadgenId).map((line) => line.outcome)).toEqual(['retry_database_unavailable', 'retry_database_unavailable', 'created']);
  });
});

describe('round trips', () => {
  it('costs a warm Meta lead one DynamoDB request: the page and the account come from the cache', async () => {
    const warm = metaLead('acc-create');
    await deliver(warm.change);
    const a = metaLead('acc-create');
    meta.roundTrips.reset();
    await deliver(a.change);
    expect(await leadOf('acc-create', a.leadgenId)).toHaveLength(1);
    // The listing above is the test's own read: count what the worker sent before it.
    expect(meta.roundTrips.commands().slice(0, -1)).toEqual(['TransactWriteItemsCommand']);
  });
});

describe('secrets', () => {
  it('never writes a page token, the app secret or the verify token to a log line or a rejection record', async () => {
    const a = metaLead('acc-ignore');
    meta.graph.failAlways(a.leadgenId, 'expired_token');
    await deliver(a.change);
    const logged = JSON.stringify(meta.logs);
    const recorded = JSON.stringify(await meta.rejectionsOf('acc-ignore'));
    expect(meta.logs.length).toBeGreaterThan(10);
    for (const secret of [...Object.values(TOKENS), APP_SECRET, VERIFY_TOKEN]) {
      expect(logged).not.toContain(secret);
      expect(recorded).not.toContain(secret);
    }
  });

  it('keeps page tokens sealed in the table', async () => {
    const stored = await metaPagesOf(meta.repository).findMetaPage('11');
    expect(stored!.sealedToken).not.toContain(TOKENS.ignore);
    expect(await meta.cipher.open('11', stored!.sealedToken)).toBe(TOKENS.ignore);
    await expect(meta.cipher.open('12', stored!.sealedToken)).rejects.toThrow();
  });
});
