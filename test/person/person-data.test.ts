/**
 * A person's data (CONTRACT.md section 12), against DynamoDB Local: leads and records made through the
 * lead handlers, access and erasure through the admin API's handler, Lead Erased events read from the
 * table's stream with the code `npm start` and the deployed pipe run, and the tables scanned afterwards
 * for anything left of the person.
 */
import { randomUUID } from 'node:crypto';
import { containerPersonKeyring } from '../../shared/person-keyring.ts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLeadStreamReader, type DeliveredEvent, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { asFunction } from '../support/aws-calls.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../../shared/http/lambda.ts';
import { routeKeyOf } from '../../shared/routes.ts';
import { matchAdminPath } from '../../shared/admin-routes.ts';
import { dynamoDbError, startFaultRelay, type FaultRelay } from '../support/fault-relay.ts';
import { waitFor } from '../support/processes.ts';
import { everyStoredItem, testService, uniqueMobile, validBody, type Answer, type TestService } from '../support/service.ts';

const SHOP = 'https://shop.example';
const p1 = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const p2 = { projectID: 'PRJ-2', campaignID: 'CMP-2' };
const projects = { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] };

/** The admin API of a service, as API Gateway invokes it after IAM authorization. */
const adminOf = (service: TestService, logs: Record<string, unknown>[] = []) => {
  const handler = adminHandler(adminRuntime(service.repository, (line) => void logs.push({ ...line })));
  return async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const [pathname, query] = path.split('?') as [string, string | undefined];
    const match = matchAdminPath(pathname)!;
    const route = match.routes.find((r) => r.method === method)!;
    const event = apiGatewayEvent({
      method,
      path: pathname,
      headers: { 'content-type': 'application/json' },
      ...(query && { rawQueryString: query }),
      ...(body !== undefined && { body: JSON.stringify(body) }),
      routeKey: routeKeyOf(route),
      pathParameters: match.pathParameters,
    });
    const response = (await asFunction('admin', () => handler(event, lambdaContext('admin') as LeadContext))) as LeadResponse;
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
  };
};


const ids = (leads: { id: string }[]) => leads.map((lead) => lead.id).sort();

/** The person lookup items of a mobile in an account: their partition is the keyed hash of the mobile. */
const lookupItemsOf = async (service: TestService, accountId: string, mobile: string) => {
  const digest = await containerPersonKeyring().digest({ kind: 'mobile', value: mobile });
  return (await everyStoredItem(service)).filter((item) => String(item.pk).startsWith(`PERSON#${accountId}#${digest}#`));
};

describe("a person's data within an account", () => {
  let service: TestService;
  let admin: ReturnType<typeof adminOf>;
  const adminLogs: Record<string, unknown>[] = [];
  let reader: LeadStreamReader;
  const events: DeliveredEvent[] = [];
  let key: string;
  let browserKey: string;
  let otherAccountKey: string;

  const tag = randomUUID().slice(0, 8);
  const person = { mobile: uniqueMobile(), email: `Asha.${tag}@Example.com`, name: `Asha Person ${tag}` };
  const other = { mobile: uniqueMobile(), name: `Ravi Other ${tag}` };
  const third = { mobile: uniqueMobile(), name: `Meera Third ${tag}` };
  const emailOnlyMobile = uniqueMobile();
  const stored: Record<string, any> = {};
  const idempotencyKey = `order-${tag}`;
  let firstBody: Record<string, unknown>;

  const lead = (body: Record<string, unknown>, headers: Record<string, string> = {}, apiKey = key) => service.call('portala', { apiKey, body, headers });

  beforeAll(async () => {
    service = await testService();
    admin = adminOf(service, adminLogs);
    await service.seedAccount({ id: 'acc-p', duplicateSetting: 'merge', projects, website: ['Skyline landing page'] });
    await service.seedAccount({ id: 'acc-q', duplicateSetting: 'merge', projects });
    key = await service.issueKey('acc-p');
    otherAccountKey = await service.issueKey('acc-q');
    browserKey = (await service.issueScopedKey({ accountId: 'acc-p', origins: [SHOP] })).key;
    reader = await startLeadStreamReader({
      dynamodb: service.client,
      endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
      leadsTable: service.tables.leads,
      onEvent: (event) => events.push(event),
      pollIntervalMs: 50,
    });

    // The person: an original and its repeat in PRJ-1 (the first with an Idempotency-Key and an e-mail), an original in PRJ-2.
    firstBody = validBody('portala', p1, { name: person.name, mobile_number: `+91 ${person.mobile.slice(0, 5)} ${person.mobile.slice(5)}`, email: person.email });
    stored.original = (await lead(firstBody, { 'Idempotency-Key': idempotencyKey })).body.data;
    stored.repeat = (await lead(validBody('portala', p1, { name: person.name, mobile_number: person.mobile }))).body.data;
    stored.secondProject = (await lead(validBody('portala', p2, { name: person.name, mobile_number: person.mobile }))).body.data;
    // Another person who gave the person's number as their alternate number.
    stored.otherWithAlternate = (await lead(validBody('portala', p1, { name: other.name, mobile_number: other.mobile, alternate_number: person.mobile }))).body.data;
    // The person again, from another phone: found by e-mail only.
    stored.emailOnly = (await lead(validBody('portala', p2, { name: person.name, mobile_number: emailOnlyMobile, email: person.email.toUpperCase() }))).body.data;
    // A third person, original and repeat: never touched.
    stored.thirdOriginal = (await lead(validBody('portala', p1, { name: third.name, mobile_number: third.mobile }))).body.data;
    stored.thirdRepeat = (await lead(validBody('portala', p1, { name: third.name, mobile_number: third.mobile }))).body.data;
    // Refused submissions of the person: an unknown project (422), a bot caught by the honeypot (quarantined), an invalid mobile with their e-mail.
    expect((await lead(validBody('portala', { projectID: 'PRJ-404', campaignID: 'CMP-1' }, { name: person.name, mobile_number: person.mobile }))).status).toBe(422);
    const bot = await service.call('website', { apiKey: browserKey, headers: { origin: SHOP }, body: validBody('website', p1, { name: person.name, mobile_number: person.mobile, company_website: 'spam' }) });
    expect(bot.status).toBe(200);
    expect((await lead({ name: person.name, mobile_number: '12345', email: person.email, ...p1, notes: 'x' })).status).toBe(422);
    // The same person in another account.
    stored.otherAccount = (await lead(validBody('portala', p1, { name: person.name, mobile_number: person.mobile, email: person.email }), {}, otherAccountKey)).body.data;
    for (const name of Object.keys(stored)) expect(stored[name]?.id).toBeDefined();
  }, 60_000);

  afterAll(async () => {
    await reader?.stop();
  });

  describe('access', () => {
    it('finds by mobile, in any form a lead accepts, every lead naming it as mobile or alternate number, and the records of submissions that carried it', async () => {
      const answer = await admin('GET', `/admin/v1/accounts/acc-p/people?mobile_number=${encodeURIComponent(`0091-${person.mobile}`)}`);
      expect(answer.status).toBe(200);
      expect(ids(answer.body.leads)).toEqual(ids([stored.original, stored.repeat, stored.secondProject, stored.otherWithAlternate]));
      // With when retention erases it (CONTRACT.md section 18): never, the account keeping leads until erased.
      expect(answer.body.leads.find((l: any) => l.id === stored.original.id)).toEqual({ ...stored.original, retained_until: null });
      expect(answer.body.rejections.map((r: any) => r.reason).sort()).toEqual(['honeypot', 'project_not_found']);
      expect(JSON.stringify(answer.body.rejections)).not.toMatch(/person_refs|pk|expires_at/);
    });

    it('finds by e-mail, whatever its case, the leads and records that carried it', async () => {
      const answer = await admin('GET', `/admin/v1/accounts/acc-p/people?email=${encodeURIComponent(person.email.toLowerCase())}`);
      expect(ids(answer.body.leads)).toEqual(ids([stored.original, stored.emailOnly]));
      expect(answer.body.rejections.map((r: any) => r.reason)).toEqual(['validation']);
    });

    it('finds nothing of the person in an account that has not heard of them, and refuses an unknown account or an invalid handle', async () => {
      expect((await admin('GET', `/admin/v1/accounts/acc-q/people?mobile_number=${other.mobile}`)).body).toEqual({ leads: [], rejections: [] });
      expect(await admin('GET', `/admin/v1/accounts/acc-nobody/people?mobile_number=${person.mobile}`)).toMatchObject({ status: 404, body: { status: false, message: 'Account not found' } });
      expect(await admin('GET', '/admin/v1/accounts/acc-p/people?mobile_number=12345')).toMatchObject({
        status: 400,
        body: { status: false, message: 'mobile_number must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9' },
      });
      expect(await admin('GET', '/admin/v1/accounts/acc-p/people?email=not-an-email')).toMatchObject({ status: 400, body: { message: 'email must be a valid email address' } });
      expect((await admin('GET', '/admin/v1/accounts/acc-p/people')).status).toBe(400);
      expect((await admin('POST', '/admin/v1/accounts/acc-p/erasures', { mobile_number: 'abc' })).status).toBe(400);
      expect((await admin('POST', '/admin/v1/accounts/acc-nobody/erasures', { mobile_number: person.mobile })).status).toBe(404);
    });
  });

  describe('erasure', () => {
    let byMobile: Answer;
    let byEmail: Answer;

    beforeAll(async () => {
      byMobile = await admin('POST', '/admin/v1/accounts/acc-p/erasures', { mobile_number: `+91${person.mobile}` });
      byEmail = await admin('POST', '/admin/v1/accounts/acc-p/erasures', { email: person.email });
    }, 30_000);

    it('answers exact counts: the person’s leads, their records, and the other leads that only named their number', () => {
      expect(byMobile).toMatchObject({ status: 200, body: { leads: 3, rejections: 2, alternate_numbers: 1 } });
      expect(byEmail).toMatchObject({ status: 200, body: { leads: 1, rejections: 1, alternate_numbers: 0 } });
    });

    it('answers zeros when run again', async () => {
      expect((await admin('POST', '/admin/v1/accounts/acc-p/erasures', { mobile_number: person.mobile })).body).toEqual({ leads: 0, rejections: 0, alternate_numbers: 0 });
      expect((await admin('POST', '/admin/v1/accounts/acc-p/erasures', { email: person.email })).body).toEqual({ leads: 0, rejections: 0, alternate_numbers: 0 });
    });

    it('leaves no item in either table holding the person’s mobile, e-mail or name, outside the account that was not asked', async () => {
      const items = (await everyStoredItem(service)).filter((item) => !JSON.stringify(item).includes('acc-q'));
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) {
        const text = JSON.stringify(item).toLowerCase();
        expect([person.mobile, person.email.toLowerCase(), person.name.toLowerCase()].filter((value) => text.includes(value))).toEqual([]);
      }
    });

    it('lists and finds nothing of the person afterwards', async () => {
      expect((await admin('GET', `/admin/v1/accounts/acc-p/people?mobile_number=${person.mobile}`)).body).toEqual({ leads: [], rejections: [] });
      expect((await admin('GET', `/admin/v1/accounts/acc-p/people?email=${person.email}`)).body).toEqual({ leads: [], rejections: [] });
      const listed = await service.repository.leadArchive.listLeads('acc-p', ['PRJ-1', 'PRJ-2']);
      expect(listed.some((l) => l.name === person.name)).toBe(false);
      const rejections = await service.repository.rejections.listRejections('acc-p');
      expect(rejections).toEqual([]);
    });

    it('keeps everything else of the lead that named the number as its alternate, and other people’s leads as they were', async () => {
      const listed = await service.repository.leadArchive.listLeads('acc-p', ['PRJ-1', 'PRJ-2']);
      const { alternate_number: _gone, ...rest } = stored.otherWithAlternate;
      expect(listed.find((l) => l.id === stored.otherWithAlternate.id)).toEqual(rest);
      expect(listed.find((l) => l.id === stored.thirdRepeat.id)).toEqual(stored.thirdRepeat);
      expect(stored.thirdRepeat.parent_lead_id).toBe(stored.thirdOriginal.id);
      expect(listed.find((l) => l.id === stored.thirdOriginal.id)).toEqual(stored.thirdOriginal);
    });

    it('leaves the same person in another account untouched', async () => {
      const found = await admin('GET', `/admin/v1/accounts/acc-q/people?mobile_number=${person.mobile}`);
      expect(found.body.leads).toEqual([{ ...stored.otherAccount, retained_until: null }]);
    });

    it('answers 409 Lead was erased to a retry under the erased lead’s Idempotency-Key, and stores nothing', async () => {
      const before = (await service.repository.leadArchive.listLeads('acc-p', ['PRJ-1'])).length;
      const replay = await lead(firstBody, { 'Idempotency-Key': idempotencyKey });
      expect(replay).toMatchObject({ status: 409, body: { status: false, message: 'Lead was erased' } });
      expect(await service.repository.leadArchive.listLeads('acc-p', ['PRJ-1'])).toHaveLength(before);
      expect((await admin('GET', `/admin/v1/accounts/acc-p/people?mobile_number=${person.mobile}`)).body).toEqual({ leads: [], rejections: [] });
    });

    it('makes the person’s next lead an original where an erased lead was the original', async () => {
      const next = await lead(validBody('portala', p1, { name: person.name, mobile_number: person.mobile }));
      expect(next.body.data).toMatchObject({ is_repeated: false, parent_lead_id: null });
      const nextElsewhere = await lead(validBody('portala', p2, { name: person.name, mobile_number: person.mobile }));
      expect(nextElsewhere.body.data).toMatchObject({ is_repeated: false, parent_lead_id: null });
    });

    it('tells the CRM: a Lead Erased event per erased lead, and one naming the field for the lead that lost its alternate number, without personal data', async () => {
      const erasedIds = [stored.original, stored.repeat, stored.secondProject, stored.emailOnly].map((l) => l.id);
      const erasures = () => events.filter((e) => e['detail-type'] === 'Lead Erased');
      await waitFor(() => erasures().length >= 5, 'five Lead Erased events', 15_000);
      expect(erasures().map((e) => e.detail).sort((a: any, b: any) => (a.lead_id < b.lead_id ? -1 : 1))).toEqual(
        [
          ...erasedIds.map((lead_id) => ({ account_id: 'acc-p', lead_id, reason: 'request' })),
          { account_id: 'acc-p', lead_id: stored.otherWithAlternate.id, fields: ['alternate_number'], reason: 'request' },
        ].sort((a, b) => (a.lead_id < b.lead_id ? -1 : 1)),
      );
      const text = JSON.stringify(erasures()).toLowerCase();
      for (const value of [person.mobile, person.email.toLowerCase(), person.name.toLowerCase()]) expect(text).not.toContain(value);
      expect(erasures().every((e) => e.source === 'crm.lead-intake')).toBe(true);
    });

    it('logs the account, the counts and the request id, never the mobile or e-mail', () => {
      const lines = adminLogs.filter((line) => line.message === 'person erased');
      expect(lines[0]).toMatchObject({ accountId: 'acc-p', erased: { leads: 3, rejections: 2, alternate_numbers: 1 }, requestId: expect.any(String) });
      const text = JSON.stringify(adminLogs).toLowerCase();
      for (const value of [person.mobile, person.email.toLowerCase()]) expect(text).not.toContain(value);
    });
  });
});

describe('an erased original under each duplicate setting', () => {
  it.each(['ignore', 'create', 'merge'] as const)('under %s, the person’s next lead is a new original', async (setting) => {
    const service = await testService();
    const admin = adminOf(service);
    await service.seedAccount({ id: 'acc-s', duplicateSetting: setting, projects });
    const key = await service.issueKey('acc-s');
    const mobile = uniqueMobile();
    expect((await service.call('portalb', { apiKey: key, body: validBody('portalb', p1, { mobile_number: mobile }) })).body.data.is_repeated).toBe(false);
    expect(await lookupItemsOf(service, 'acc-s', mobile)).not.toEqual([]);
    expect((await admin('POST', '/admin/v1/accounts/acc-s/erasures', { mobile_number: mobile })).body).toEqual({ leads: 1, rejections: 0, alternate_numbers: 0 });
    expect(await lookupItemsOf(service, 'acc-s', mobile)).toEqual([]);
    const next = await service.call('portalb', { apiKey: key, body: validBody('portalb', p1, { mobile_number: mobile }) });
    expect(next).toMatchObject({ status: 200, body: { data: { is_repeated: false, parent_lead_id: null } } });
  });
});

describe('an erasure interrupted half way', () => {
  let relay: FaultRelay;
  afterAll(async () => {
    await relay?.close();
  });

  it('fails with 503 when the database stops answering part way, and run again finishes with the counts of the whole erasure', async () => {
    relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
    const service = await testService({ endpoint: relay.endpoint });
    const admin = adminOf(service);
    await service.seedAccount({ id: 'acc-i', duplicateSetting: 'create', projects });
    const key = await service.issueKey('acc-i');
    const mobile = uniqueMobile();
    for (const project of [p1, p1, p2, p2]) {
      expect((await service.call('social', { apiKey: key, body: validBody('portala', project, { mobile_number: mobile }) })).status).toBe(422);
      expect((await service.call('portala', { apiKey: key, body: validBody('portala', project, { mobile_number: mobile }) })).status).toBe(200);
    }

    // Two items' transactions pass; from the third on, DynamoDB answers 500 to every transaction, past the SDK's retries.
    let transactions = 0;
    relay.plan((request) => (request.operation === 'TransactWriteItems' && ++transactions > 2 ? dynamoDbError.internalServerError() : undefined));
    const interrupted = await admin('POST', '/admin/v1/accounts/acc-i/erasures', { mobile_number: mobile });
    expect(interrupted).toMatchObject({ status: 503, body: { message: 'Service temporarily unavailable, please retry' } });
    const halfway = await admin('GET', `/admin/v1/accounts/acc-i/people?mobile_number=${mobile}`);
    expect(halfway.body.leads.length + halfway.body.rejections.length).toBe(6);

    relay.heal();
    const again = await admin('POST', '/admin/v1/accounts/acc-i/erasures', { mobile_number: mobile });
    expect(again).toMatchObject({ status: 200, body: { leads: 4, rejections: 4, alternate_numbers: 0 } });
    expect((await admin('GET', `/admin/v1/accounts/acc-i/people?mobile_number=${mobile}`)).body).toEqual({ leads: [], rejections: [] });
    expect((await admin('POST', '/admin/v1/accounts/acc-i/erasures', { mobile_number: mobile })).body).toEqual({ leads: 0, rejections: 0, alternate_numbers: 0 });
    const left = (await everyStoredItem(service)).filter((item) => JSON.stringify(item).includes(mobile));
    expect(left).toEqual([]);
    // The lookup items hold the mobile's keyed hash, never the mobile: a scan for it could not see them.
    expect(await lookupItemsOf(service, 'acc-i', mobile)).toEqual([]);
  }, 60_000);
});
