/**
 * MagicBricks' leads pulled (CONTRACT.md section 17), against DynamoDB Local and MagicBricks faked on
 * its wire: the key as issued, day-granular dates in India time, `isd` with the number, its refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fakeMagicbricks, mbTime } from '../support/fake-portals.ts';
import { portalTestService, type PortalTestService } from '../support/portal-service.ts';
import { uniqueMobile } from '../support/service.ts';

const HOUR = 60 * 60 * 1000;
// 20:00 UTC is 01:30 the next day in India: the window's days are India's, not UTC's.
const clock = new Date('2026-12-07T20:00:00.000Z');

let portal: Awaited<ReturnType<typeof fakeMagicbricks>>;
let service: PortalTestService;
let accounts = 0;

beforeAll(async () => {
  portal = await fakeMagicbricks();
  service = await portalTestService({ baseUrls: { magicbricks: portal.url }, failingMinutes: 0, now: () => clock });
});
afterAll(async () => portal.close());

const connected = async (key = `mb+key/${accounts + 1}==`) => {
  const accountId = `acc-mb-${++accounts}`;
  const loginId = `mb-login-${accounts}`;
  await service.seedAccount({ id: accountId, projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  const fake = portal.key(loginId, key);
  await service.connect({ accountId, portal: 'magicbricks', login: loginId, credential: key, map: { '4411': { projectId: 'PRJ-2', campaignId: 'CMP-2' } } });
  return { accountId, loginId, key, fake };
};

describe('a MagicBricks lead', () => {
  it('becomes a lead, its isd and mobile read as one number, its project mapped by pid', async () => {
    const { accountId, loginId, fake } = await connected();
    const mobile = uniqueMobile();
    fake.add({ id: '991001', ...mbTime(new Date(clock.getTime() - HOUR)), name: ' Ravi Kumar ', email: 'ravi@example.in', mobile, isd: '91', msg: 'Call after 6 pm', city: 'Noida', locality: 'Sector 150', project: 'Green Acres', pid: '4411' });

    expect(await service.pull('magicbricks', loginId)).toMatchObject({ stored: 1, recorded: 0 });

    const [lead] = await service.leadsOf(accountId, ['PRJ-2']);
    expect(lead).toMatchObject({
      name: 'Ravi Kumar',
      mobile_number: mobile,
      email: 'ravi@example.in',
      projectID: 'PRJ-2',
      campaignID: 'CMP-2',
      source: 'magicbricks',
      sub_source: null,
      notes: 'Call after 6 pm',
      portal_login: loginId,
      portal_enquiry_id: '991001',
      portal_received_at: new Date(Math.floor((clock.getTime() - HOUR) / 1000) * 1000).toISOString(),
      portal_project_id: '4411',
      portal_project_name: 'Green Acres',
      portal_city: 'Noida',
    });
  });

  it('is asked for with the key as issued and the window’s first and last day in India time', async () => {
    const { key } = await connected('k+ey/with=signs');
    await service.pull('magicbricks', `mb-login-${accounts}`);
    const [request] = portal.requests.filter((r) => r.url.searchParams.get('key') === key);
    expect(request!.method).toBe('GET');
    expect(request!.url.searchParams.get('key')).toBe('k+ey/with=signs');
    // From 20:00 UTC the day before (01:30 on the 7th in India) to 20:00 UTC (01:30 on the 8th).
    expect([request!.url.searchParams.get('startDate'), request!.url.searchParams.get('endDate')]).toEqual(['20261207', '20261208']);
  });

  it('from abroad (isd other than 91) is a validation record', async () => {
    const { accountId, loginId, fake } = await connected();
    fake.add({ id: '991002', ...mbTime(new Date(clock.getTime() - HOUR)), name: 'Abroad', mobile: '9876543210', isd: '971' });
    expect(await service.pull('magicbricks', loginId)).toMatchObject({ stored: 0, recorded: 1 });
    expect(await service.rejectionsOf(accountId)).toEqual([expect.objectContaining({ endpoint: 'magicbricks', reason: 'validation', portal_enquiry_id: '991002' })]);
  });
});

describe('MagicBricks refusing', () => {
  it('an unknown key (errormsg) turns the login failing as credential_refused', async () => {
    const { accountId, loginId } = await connected();
    await service.connect({ accountId, portal: 'magicbricks', login: loginId, credential: 'a key MagicBricks never issued' });
    await service.pull('magicbricks', loginId);
    expect(service.events.filter((event) => event.detail.login === loginId)).toEqual([
      expect.objectContaining({ detailType: 'Portal Failing', detail: expect.objectContaining({ reason: 'credential_refused', message: expect.stringContaining('Invalid key') }) }),
    ]);
  });

  it('its Access Denied page (an address not allow-listed) is portal_refused, and leaves the watermark', async () => {
    const { accountId, loginId } = await connected();
    portal.deny(true);
    try {
      expect(await service.pull('magicbricks', loginId)).toEqual({ stored: 0, recorded: 0, already: 0, pulled_through: null });
    } finally {
      portal.deny(false);
    }
    const [login] = await service.logins.list(accountId);
    expect(login!.failing).toMatchObject({ reason: 'portal_refused', message: expect.stringContaining('allow-list') });
    expect(login!.pulledThrough).toBeUndefined();
  });
});
