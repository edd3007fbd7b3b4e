import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { challengesAgainst, fakeSiteverify, type FakeSiteverify } from '../support/fake-siteverify.ts';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { googleTestService, standardColumns, type GoogleTestService } from '../support/google-service.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

/** DynamoDB requests per lead request, counted by an SDK middleware on the real client. */
let service: TestService;
const keys: Partial<Record<DuplicateSetting, string>> = {};
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  for (const setting of ['ignore', 'create', 'merge'] as const) {
    await service.seedAccount({ id: `acc-${setting}`, duplicateSetting: setting, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    keys[setting] = await service.issueKey(`acc-${setting}`);
  }
});

const roundTripsOf = async (setting: DuplicateSetting, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  service.roundTrips.reset();
  const answer = await service.call('website', { apiKey: keys[setting]!, body, headers });
  return { answer, count: service.roundTrips.count(), commands: service.roundTrips.commands() };
};

describe('DynamoDB round trips per request', () => {
  it('loads the configuration of a cold container in two requests, then stores the lead in one', async () => {
    const { answer, commands } = await roundTripsOf('ignore', validBody('website', project));
    expect(answer.status).toBe(200);
    expect(commands).toEqual(['GetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand']);
  });

  it('stores a new lead in exactly one request when warm', async () => {
    await roundTripsOf('create', validBody('website', project));
    const { answer, commands } = await roundTripsOf('create', validBody('website', project));
    expect(answer.status).toBe(200);
    expect(commands).toEqual(['TransactWriteItemsCommand']);
  });

  it('writes the person lookup items of a new lead in its own transaction, keyed by hashes, never the mobile or e-mail', async () => {
    await roundTripsOf('create', validBody('website', project));
    const mobile = uniqueMobile();
    const alternate = uniqueMobile();
    const { answer, commands } = await roundTripsOf('create', validBody('website', project, { mobile_number: mobile, alternate_number: alternate, email: 'Round.Trip@Example.com' }));
    expect(answer.status).toBe(200);
    expect(commands).toEqual(['TransactWriteItemsCommand']);
    const { input } = service.roundTrips.inputs()[0]!;
    const lookups = input.TransactItems.map((item: any) => item.Put.Item).filter((item: any) => item.item_type === 'person_ref');
    expect(lookups.map((item: any) => item.role)).toEqual(['mobile', 'alternate_number', 'email']);
    const keys = JSON.stringify(lookups.map((item: any) => [item.pk, item.sk]));
    expect(keys).not.toContain(mobile);
    expect(keys).not.toContain(alternate);
    expect(keys.toLowerCase()).not.toContain('round.trip');
  });

  it('refuses a duplicate under Ignore in one request, and records the rejection (with its lookup items) in one more', async () => {
    const mobile = uniqueMobile();
    await roundTripsOf('ignore', validBody('website', project, { mobile_number: mobile }));
    const { answer, commands } = await roundTripsOf('ignore', validBody('website', project, { mobile_number: mobile }));
    expect(answer.status).toBe(422);
    expect(commands).toEqual(['TransactWriteItemsCommand', 'BatchWriteItemCommand']);
  });

  it.each(['create', 'merge'] as const)('stores a repeated lead under %s in three requests: the refused claim, the repeat, the read of the claim', async (setting) => {
    const mobile = uniqueMobile();
    await roundTripsOf(setting, validBody('website', project, { mobile_number: mobile }));
    const { answer, commands } = await roundTripsOf(setting, validBody('website', project, { mobile_number: mobile }));
    expect(answer.body.data.is_repeated).toBe(true);
    // The claim read back after the repeat is stored: an erasure in between makes the repeat an original (CONTRACT.md section 14).
    expect(commands).toEqual(['TransactWriteItemsCommand', 'BatchWriteItemCommand', 'GetItemCommand']);
  });

  it.each(['create', 'merge'] as const)('stores a repeated lead with an Idempotency-Key under %s in two requests: the refused claim, the repeat with the claim checked inside it', async (setting) => {
    const mobile = uniqueMobile();
    await roundTripsOf(setting, validBody('website', project, { mobile_number: mobile }));
    const { answer, commands } = await roundTripsOf(setting, validBody('website', project, { mobile_number: mobile }), { 'Idempotency-Key': `repeat-${mobile}` });
    expect(answer.status).toBe(200);
    expect(answer.body.data.is_repeated).toBe(true);
    expect(commands).toEqual(['TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
  });

  it('spends no request on checking the fields when warm, only the record of their rejection', async () => {
    await roundTripsOf('merge', validBody('website', project));
    const { answer, commands } = await roundTripsOf('merge', { name: 'x' });
    expect(answer.status).toBe(422);
    expect(commands).toEqual(['PutItemCommand']);
  });

  it('spends no request on a malformed body when warm', async () => {
    await roundTripsOf('merge', validBody('website', project));
    service.roundTrips.reset();
    const answer = await service.call('website', { apiKey: keys.merge!, rawBody: '{oops' });
    expect(answer.status).toBe(400);
    expect(service.roundTrips.count()).toBe(0);
  });

  it('re-reads the configuration once before refusing an unknown project when warm', async () => {
    await roundTripsOf('merge', validBody('website', project));
    const { answer, commands } = await roundTripsOf('merge', validBody('website', { projectID: 'PRJ-404', campaignID: 'CMP-1' }));
    expect(answer.body.message).toBe('Project not found');
    expect(commands).toEqual(['QueryCommand', 'BatchWriteItemCommand']);
  });
});

describe('DynamoDB round trips with a scoped browser key', () => {
  const SHOP = 'https://shop.example';
  let browserKey: string;
  beforeAll(async () => {
    await service.seedAccount({ id: 'acc-browser', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    browserKey = (await service.issueScopedKey({ accountId: 'acc-browser', origins: [SHOP], label: 'Landing page', expiresAt: '2999-01-01T00:00:00Z' })).key;
  });

  const post = async (body: Record<string, unknown>, headers: Record<string, string> = { origin: SHOP }) => {
    service.roundTrips.reset();
    const answer = await service.call('website', { apiKey: browserKey, body, headers });
    return { answer, commands: service.roundTrips.commands() };
  };

  it('reads everything the key carries with the key: a cold container spends the same two requests, then one for the lead', async () => {
    const { answer, commands } = await post(validBody('website', project));
    expect(answer.status).toBe(200);
    expect(commands).toEqual(['GetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand']);
  });

  it('stores a new lead in exactly one request when warm', async () => {
    await post(validBody('website', project));
    const { answer, commands } = await post(validBody('website', project));
    expect(answer.status).toBe(200);
    expect(commands).toEqual(['TransactWriteItemsCommand']);
  });

  it('refuses a foreign origin and a dry run without a request when warm', async () => {
    await post(validBody('website', project));
    expect(await post(validBody('website', project), { origin: 'https://evil.example' })).toMatchObject({ answer: { status: 403 }, commands: [] });
    expect(await post(validBody('website', project), { origin: SHOP, 'x-dry-run': 'true' })).toMatchObject({ answer: { status: 403 }, commands: [] });
  });

  it('answers a bot with one request when warm: its quarantine record, with the minute count of its key and its person lookup items in the same transaction', async () => {
    await post(validBody('website', project));
    const { answer, commands } = await post(validBody('website', project, { company_website: 'https://spam.example' }));
    expect(answer.status).toBe(200);
    expect(commands).toEqual(['TransactWriteItemsCommand']);
  });

  it('records the field refusal of a browser key in one request too (the rate bound rides in it)', async () => {
    await post(validBody('website', project));
    const { answer, commands } = await post({ name: 'x' });
    expect(answer.status).toBe(422);
    expect(commands).toEqual(['TransactWriteItemsCommand']);
  });
});

describe('DynamoDB round trips with a challenge key (CONTRACT.md section 11)', () => {
  const SHOP = 'https://shop.example';
  const SECRET = 'round-trip-captcha-secret';
  let provider: FakeSiteverify;
  let challenged: TestService;
  let challengeKey: string;
  beforeAll(async () => {
    provider = await fakeSiteverify(SECRET);
    challenged = await testService({ challenges: challengesAgainst(provider) });
    await challenged.seedAccount({ id: 'acc-captcha', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    challengeKey = (await challenged.issueScopedKey({ accountId: 'acc-captcha', origins: [SHOP], captcha: { provider: 'turnstile', secret: SECRET } })).key;
  });
  afterAll(async () => {
    await provider.close();
  });

  const post = async (token: string) => {
    challenged.roundTrips.reset();
    const asked = provider.requests.length;
    const answer = await challenged.call('website', { apiKey: challengeKey, body: validBody('website', project, { captcha_token: token }), headers: { origin: SHOP } });
    return { answer, commands: challenged.roundTrips.commands(), providerCalls: provider.requests.length - asked };
  };

  it('stores a new lead in exactly one request when warm, plus the one provider call', async () => {
    await post('pass');
    const { answer, commands, providerCalls } = await post('pass');
    expect(answer.status).toBe(200);
    expect(commands).toEqual(['TransactWriteItemsCommand']);
    expect(providerCalls).toBe(1);
  });

  it('records a failed challenge in one request, plus the one provider call', async () => {
    await post('pass');
    const { answer, commands, providerCalls } = await post('fail');
    expect(answer.status).toBe(403);
    expect(commands).toEqual(['TransactWriteItemsCommand']);
    expect(providerCalls).toBe(1);
  });
});

describe('DynamoDB round trips of a Google Ads lead form delivery', () => {
  let google: GoogleTestService;
  let formKey: string;
  let websiteKey: string;
  beforeAll(async () => {
    google = await googleTestService();
    await google.seedAccount({ id: 'acc-google', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    formKey = await google.connectForm('acc-google', '44000000001');
    websiteKey = await google.issueKey('acc-google');
  });
  const deliver = () => google.deliver({ formId: '44000000001', key: formKey, columns: standardColumns(uniqueMobile()) });

  it('reads the form and the configuration of a cold container, then stores the lead in one request', async () => {
    google.roundTrips.reset();
    expect((await deliver()).status).toBe(200);
    expect(google.roundTrips.commands()).toEqual(['GetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand']);
  });

  it('stores a warm new Google lead in as many requests as a warm new website lead: one', async () => {
    await deliver();
    google.roundTrips.reset();
    expect((await deliver()).status).toBe(200);
    const googleCommands = google.roundTrips.commands();
    await google.call('website', { apiKey: websiteKey, body: validBody('website', project) });
    google.roundTrips.reset();
    expect((await google.call('website', { apiKey: websiteKey, body: validBody('website', project) })).status).toBe(200);
    expect(googleCommands).toEqual(google.roundTrips.commands());
    expect(googleCommands).toEqual(['TransactWriteItemsCommand']);
  });
});
