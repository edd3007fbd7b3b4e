/**
 * Housing.com's leads pulled (CONTRACT.md section 17), against DynamoDB Local and Housing.com faked on
 * its wire: the HMAC of current_time, epoch-second windows, its builder and broker feeds, its ids made
 * of the lead, and its 1,000-row cap split into halves.
 */
import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { portalHttp } from '../../shared/pulled/http.ts';
import { HOUSING_PER_PAGE, housingReader } from '../../shared/portals/housing/reader.ts';
import { fakeHousing } from '../support/fake-portals.ts';
import { portalTestService, type PortalTestService } from '../support/portal-service.ts';
import { uniqueMobile } from '../support/service.ts';

const clock = new Date('2026-12-07T12:00:00.000Z');
const seconds = (at: Date) => Math.floor(at.getTime() / 1000);
const NOW = seconds(clock);

let portal: Awaited<ReturnType<typeof fakeHousing>>;
let service: PortalTestService;
let accounts = 0;

beforeAll(async () => {
  portal = await fakeHousing();
  service = await portalTestService({ baseUrls: { housing: portal.url }, failingMinutes: 0, now: () => clock });
});
afterAll(async () => portal.close());

const connected = async (feed?: 'builder' | 'broker') => {
  const accountId = `acc-hs-${++accounts}`;
  const profileId = `${7000 + accounts}`;
  const key = `enc-key-${accounts}`;
  await service.seedAccount({ id: accountId, projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  const fake = portal.profile(profileId, key);
  await service.connect({ accountId, portal: 'housing', login: profileId, credential: key, ...(feed && { feed }) });
  return { accountId, profileId, key, fake };
};

const requestsOf = (profileId: string) => portal.requests.filter((request) => request.url.searchParams.get('id') === profileId);

describe('a Housing.com lead', () => {
  it('becomes a lead with its country code, its id made of the profile, phone, date and project', async () => {
    const { accountId, profileId, fake } = await connected();
    const mobile = uniqueMobile();
    fake.add('builder', { lead_date: NOW - 600, lead_name: 'Meera Iyer', lead_email: 'meera@example.in', lead_phone: mobile, country_code: '+91', project_id: 'P-31', project_name: 'Lake View', locality_name: 'Whitefield', city_name: 'Bengaluru', service_type: 'buy' });

    expect(await service.pull('housing', profileId)).toMatchObject({ stored: 1 });

    const [lead] = await service.leadsOf(accountId);
    const id = `h-${createHash('sha256').update([profileId, mobile, String(NOW - 600), 'P-31'].join('\n')).digest('hex')}`;
    expect(lead).toMatchObject({
      name: 'Meera Iyer',
      mobile_number: mobile,
      source: 'housing',
      portal_enquiry_id: id,
      portal_received_at: new Date((NOW - 600) * 1000).toISOString(),
      portal_project_id: 'P-31',
      portal_project_name: 'Lake View',
      portal_city: 'Bengaluru',
    });
    expect(lead).not.toHaveProperty('notes');
  });

  it('is asked for with epoch seconds, current_time and its HMAC keyed with the encryption key, per_page 1000', async () => {
    const { profileId, key } = await connected();
    await service.pull('housing', profileId);
    const [request] = requestsOf(profileId);
    const q = request!.url.searchParams;
    expect(request!.url.pathname).toBe('/api/v0/get-builder-leads');
    expect(Object.fromEntries(q)).toEqual({
      start_date: String(NOW - 24 * 3600),
      end_date: String(NOW),
      current_time: String(NOW),
      hash: createHmac('sha256', key).update(String(NOW)).digest('hex'),
      id: profileId,
      per_page: '1000',
    });
  });

  it('of the broker feed is read from get-broker-leads, and one with only a flat_id names its listing', async () => {
    const { accountId, profileId, fake } = await connected('broker');
    fake.add('broker', { lead_date: NOW - 60, lead_name: 'Flat buyer', lead_phone: uniqueMobile(), flat_id: 'F-77' });
    fake.add('builder', { lead_date: NOW - 60, lead_name: 'Not this feed', lead_phone: uniqueMobile(), project_id: 'P-1' });
    await service.pull('housing', profileId);
    expect(requestsOf(profileId).map((r) => r.url.pathname)).toEqual(['/api/v0/get-broker-leads']);
    expect((await service.leadsOf(accountId)).map((lead) => [lead.name, lead.portal_listing_id])).toEqual([['Flat buyer', 'F-77']]);
  });

  it('a window that answers 1,000 leads is split into halves until each answers fewer, and reads every lead once', async () => {
    // Through the reader and the bounded HTTP client alone: storing 1,500 leads would time the suite, not the split
    // (that each enquiry read is stored once is the pull's, tested above and in 99acres-pull.test.ts).
    const { profileId, key, fake } = await connected();
    const leads = Array.from({ length: 1500 }, (_, i) => ({ lead_date: NOW - 3600 - i * 10, lead_name: `Buyer ${i}`, lead_phone: uniqueMobile(), country_code: '91', project_id: 'P-9' }));
    fake.add('builder', ...leads);
    const request = { baseUrl: portal.url, login: profileId, credential: key, feed: 'builder', from: new Date((NOW - 24 * 3600) * 1000), to: clock, now: clock };

    const enquiries = await housingReader.read(request, portalHttp());

    expect(enquiries).toHaveLength(1500);
    expect(new Set(enquiries.map((enquiry) => enquiry.id)).size).toBe(1500);
    expect(requestsOf(profileId).length).toBeGreaterThan(2);
    expect(requestsOf(profileId).every((request) => request.url.searchParams.get('per_page') === String(HOUSING_PER_PAGE))).toBe(true);
  });
});

describe('Housing.com refusing', () => {
  it('a 401 (a wrong key) turns the login failing as credential_refused', async () => {
    const { profileId, fake } = await connected();
    fake.setKey('rotated on Housing.com');
    await service.pull('housing', profileId);
    expect(service.events.filter((event) => event.detail.login === profileId)).toEqual([expect.objectContaining({ detailType: 'Portal Failing', detail: expect.objectContaining({ reason: 'credential_refused' }) })]);
  });
});
