import { beforeAll, describe, expect, it } from '@jest/globals';
import { testService, validBody, type TestService } from '../support/service.ts';

/** CONTRACT.md section 7, "Bots": the hidden company_website field of a browser key's form. */
let service: TestService;
let browserKey: string;
let secretKey: string;
const SHOP = 'https://shop.example';
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-h', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
  browserKey = (await service.issueScopedKey({ accountId: 'acc-h', origins: [SHOP] })).key;
  secretKey = await service.issueKey('acc-h');
});

const post = (body: Record<string, unknown>, apiKey = browserKey) => service.call('website', { apiKey, body, headers: { origin: SHOP } });
const storedMobiles = async () => (await service.repository.leadArchive.listLeads('acc-h', ['PRJ-1'])).map((lead) => lead.mobile_number);
const lastRejection = async () => (await service.repository.rejections.listRejections('acc-h')).at(-1);

describe('the honeypot of a browser key', () => {
  it.each([
    ['a filled string', 'https://spam.example'],
    ['a number', 0],
    ['false', false],
    ['an object', { url: 'x' }],
    ['an empty list', []],
  ])('answers a bot that sent %s as a new lead, stores no lead, and records the rejection', async (_, value) => {
    const body = validBody('website', project, { company_website: value });
    const answer = await post(body);
    expect(answer).toMatchObject({ status: 200, body: { status: true, message: 'Lead created successfully', data: { name: 'Asha Verma', mobile_number: body.mobile_number } } });
    expect(answer.body.data.id).toMatch(/\S/);
    expect(answer.headers['access-control-allow-origin']).toBe(SHOP);
    expect(await storedMobiles()).not.toContain(body.mobile_number);
    expect(await lastRejection()).toMatchObject({ requestId: answer.headers['x-request-id'], endpoint: 'website', reason: 'honeypot' });
  });

  it('gives each bot answer a fresh lead id', async () => {
    const first = await post(validBody('website', project, { company_website: 'x' }));
    const second = await post(validBody('website', project, { company_website: 'x' }));
    expect(first.body.data.id).not.toBe(second.body.data.id);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['null', null],
  ])('stores a lead whose hidden field is %s', async (_, value) => {
    const body = validBody('website', project, value === undefined ? {} : { company_website: value });
    const answer = await post(body);
    expect(answer.status).toBe(200);
    expect(await storedMobiles()).toContain(body.mobile_number);
    expect(answer.body.data).not.toHaveProperty('company_website');
  });

  it('gives an invalid body the usual 422 first', async () => {
    const answer = await post({ name: 'x', company_website: 'https://spam.example' });
    expect(answer).toMatchObject({ status: 422, body: { errors: expect.any(Object) } });
  });

  it('does not judge keys without origins: a server key with the field filled stores its lead', async () => {
    const serverKey = await service.issueKey('acc-h');
    const body = validBody('website', project, { company_website: 'https://partner.example' });
    const answer = await service.call('website', { apiKey: serverKey, body });
    expect(answer.status).toBe(200);
    expect(await storedMobiles()).toContain(body.mobile_number);
  });
});

describe('captcha_token on the website endpoint', () => {
  it.each([
    ['a browser key', () => browserKey],
    ['a secret key', () => secretKey],
  ])('is never a validation problem and never stored, with %s', async (_, key) => {
    for (const token of ['widget-token', 42, { nested: true }, null]) {
      const body = validBody('website', project, { captcha_token: token });
      const answer = await post(body, key());
      expect(answer.status).toBe(200);
      expect(answer.body.data).not.toHaveProperty('captcha_token');
      const [stored] = (await service.repository.leadArchive.listLeads('acc-h', ['PRJ-1'])).filter((lead) => lead.mobile_number === body.mobile_number);
      expect(stored).toBeDefined();
      expect(stored).not.toHaveProperty('captcha_token');
    }
  });
});
