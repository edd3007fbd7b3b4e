/**
 * 99acres' enquiries pulled (CONTRACT.md section 17), against DynamoDB Local and 99acres faked on its
 * wire: the query it reads, the answer's shapes, the windows, the watermark, exactly-once, failures told.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PersonData } from '../../shared/domain/person-data.ts';
import { removePortalLogin } from '../../shared/pulled/logins.ts';
import { fakeNinetyNineAcres, istText, ninetyNineAcresQuery } from '../support/fake-portals.ts';
import { portalTestService, type PortalTestService } from '../support/portal-service.ts';
import { uniqueMobile } from '../support/service.ts';

const HOUR = 60 * 60 * 1000;
let clock = new Date('2026-12-07T06:00:00.000Z');
const at = (offsetMs: number) => new Date(clock.getTime() + offsetMs);

let portal: Awaited<ReturnType<typeof fakeNinetyNineAcres>>;
let service: PortalTestService;
let accounts = 0;

beforeAll(async () => {
  portal = await fakeNinetyNineAcres();
  service = await portalTestService({ baseUrls: { '99acres': portal.url }, failingMinutes: 30, http: { timeoutMs: 1_000 }, now: () => clock });
});
afterAll(async () => {
  await portal.close();
});

/** A fresh account with PRJ-1/CMP-1 and PRJ-2/CMP-2, and a 99acres login of it connected now. */
const connected = async (duplicateSetting: 'ignore' | 'create' | 'merge' = 'ignore', map?: Record<string, { projectId: string; campaignId: string }>) => {
  const accountId = `acc-99-${++accounts}`;
  await service.seedAccount({ id: accountId, duplicateSetting, projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  const user = `broker-${accounts}`;
  const password = `p&ss<${accounts}>'"`;
  const fake = portal.login(user, password);
  await service.connect({ accountId, portal: '99acres', login: user, credential: password, ...(map && { map }) });
  return { accountId, user, password, fake };
};

const requestsOf = (user: string) => portal.requests.filter((request) => ninetyNineAcresQuery(request).user === user);

describe('a 99acres enquiry', () => {
  it('becomes a lead of the login’s project, read from padded CDATA, a TblId and a +91- phone', async () => {
    const { accountId, user, fake } = await connected();
    const mobile = uniqueMobile();
    fake.add({
      id: 'Q-1001',
      idAttribute: 'TblId',
      receivedOn: istText(at(-2 * HOUR)),
      name: 'Asha Verma',
      email: 'asha@example.in',
      phone: `+91-${mobile}`,
      info: 'Interested in 3BHK & parking',
      projectId: '88231',
      projectName: 'Skyline Residency',
      city: 'Pune',
      propertyCode: 'R7712',
    });

    const summary = await service.pull('99acres', user);

    expect(summary).toEqual({ stored: 1, recorded: 0, already: 0, pulled_through: clock.toISOString() });
    const [lead, ...others] = await service.leadsOf(accountId);
    expect(others).toEqual([]);
    expect(lead).toMatchObject({
      name: 'Asha Verma',
      mobile_number: mobile,
      email: 'asha@example.in',
      projectID: 'PRJ-1',
      campaignID: 'CMP-1',
      source: '99acres',
      sub_source: null,
      is_repeated: false,
      notes: 'Interested in 3BHK & parking',
      portal_login: user,
      portal_enquiry_id: 'Q-1001',
      portal_received_at: at(-2 * HOUR).toISOString(),
      portal_project_id: '88231',
      portal_project_name: 'Skyline Residency',
      portal_city: 'Pune',
      portal_listing_id: 'R7712',
    });
  });

  it('is asked for with the form-encoded XML query: the user name and password escaped, the window in India time', async () => {
    const { user, password } = await connected();

    await service.pull('99acres', user);

    const [request, ...more] = requestsOf(user);
    expect(more).toEqual([]);
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const query = ninetyNineAcresQuery(request!);
    expect(query.xml).toBe(
      `<?xml version='1.0'?><query><user_name>${user}</user_name><pswd>p&amp;ss&lt;${accounts}&gt;&apos;&quot;</pswd>` +
        `<start_date>${istText(at(-24 * HOUR))}</start_date><end_date>${istText(clock)}</end_date></query>`,
    );
    expect(query.password).toBe(password);
  });

  it('goes to the project and campaign its portal project is mapped to', async () => {
    const { accountId, user, fake } = await connected('ignore', { '5501': { projectId: 'PRJ-2', campaignId: 'CMP-2' } });
    fake.add({ id: 'M-1', receivedOn: istText(at(-HOUR)), name: 'Mapped', phone: uniqueMobile(), projectId: '5501' });
    fake.add({ id: 'M-2', receivedOn: istText(at(-HOUR)), name: 'Unmapped', phone: uniqueMobile(), projectId: '9999' });

    await service.pull('99acres', user);

    const leads = await service.leadsOf(accountId, ['PRJ-1', 'PRJ-2']);
    expect(leads.map((lead) => [lead.name, lead.projectID, lead.campaignID]).sort()).toEqual([
      ['Mapped', 'PRJ-2', 'CMP-2'],
      ['Unmapped', 'PRJ-1', 'CMP-1'],
    ]);
  });

  it('with a foreign number is a validation record, and one with an invalid e-mail is a lead without it', async () => {
    const { accountId, user, fake } = await connected();
    const mobile = uniqueMobile();
    fake.add({ id: 'F-1', receivedOn: istText(at(-HOUR)), name: 'Abroad', phone: '+44-7911123456' });
    fake.add({ id: 'F-2', receivedOn: istText(at(-HOUR)), name: 'Typo', phone: mobile, email: 'not an e-mail' });
    fake.add({ id: 'F-3', receivedOn: istText(at(-HOUR)), name: '   ', phone: uniqueMobile() });

    expect(await service.pull('99acres', user)).toMatchObject({ stored: 2, recorded: 1, already: 0 });

    const leads = await service.leadsOf(accountId);
    expect(leads.find((lead) => lead.mobile_number === mobile)).not.toHaveProperty('email');
    expect(leads.map((lead) => lead.name).sort()).toEqual(['Portal enquiry', 'Typo']);
    const [record, ...others] = await service.rejectionsOf(accountId);
    expect(others).toEqual([]);
    expect(record).toMatchObject({ endpoint: '99acres', reason: 'validation', portal_login: user, portal_enquiry_id: 'F-1' });
  });
});

describe('the watermark', () => {
  it('moves past each 24-hour slice, oldest first, and the next pull starts 15 minutes before it', async () => {
    const { user } = await connected();
    const connectedAt = clock;
    clock = at(30 * HOUR);
    try {
      expect((await service.pull('99acres', user)) as object).toMatchObject({ pulled_through: clock.toISOString() });
      const firstPull = requestsOf(user).map((request) => ninetyNineAcresQuery(request));
      expect(firstPull.map(({ start, end }) => [start, end])).toEqual([
        [istText(new Date(connectedAt.getTime() - 24 * HOUR)), istText(connectedAt)],
        [istText(connectedAt), istText(new Date(connectedAt.getTime() + 24 * HOUR))],
        [istText(new Date(connectedAt.getTime() + 24 * HOUR)), istText(clock)],
      ]);
      const watermark = clock;
      clock = at(HOUR);
      await service.pull('99acres', user);
      const next = ninetyNineAcresQuery(requestsOf(user).at(-1)!);
      expect([next.start, next.end]).toEqual([istText(new Date(watermark.getTime() - 15 * 60_000)), istText(clock)]);
    } finally {
      clock = new Date(connectedAt.getTime() + 60 * HOUR);
    }
  });

  it.each([
    ['a 500', 'server_error', 'portal_unavailable'],
    ['a hang past the timeout', 'hang', 'portal_unavailable'],
    ['a reset connection', 'reset', 'portal_unavailable'],
    ['garbage', 'garbage', 'malformed_answer'],
    ['a DOCTYPE', 'doctype', 'malformed_answer'],
    ['an answer over 10 MiB', 'huge', 'malformed_answer'],
  ] as const)('stays where it was after %s, and the next pull stores the slice’s enquiry', async (_what, fault, reason) => {
    const { accountId, user, fake } = await connected();
    fake.add({ id: `W-${fault}`, receivedOn: istText(at(-HOUR)), name: 'Waiting', phone: uniqueMobile() });
    portal.failNext(fault);

    expect(await service.pull('99acres', user)).toEqual({ stored: 0, recorded: 0, already: 0, pulled_through: null });
    expect(service.pullLogs.some((line) => line.login === user && line.reason === reason)).toBe(true);
    expect(await service.leadsOf(accountId)).toEqual([]);

    expect(await service.pull('99acres', user)).toMatchObject({ stored: 1, pulled_through: clock.toISOString() });
    expect(await service.leadsOf(accountId)).toHaveLength(1);
  });
});

describe('exactly once', () => {
  it('re-pulling a stored window writes nothing and reads the claims in batches of 100', async () => {
    const { accountId, user, fake } = await connected();
    // Just past one batch of claims: 101 enquiries are two reads of them.
    for (let i = 0; i < 101; i++) fake.add({ id: `B-${i}`, receivedOn: istText(at(-10 * 60_000)), name: `Buyer ${i}`, phone: uniqueMobile() });
    expect(await service.pull('99acres', user)).toMatchObject({ stored: 101 });

    service.roundTrips.reset();
    expect(await service.pull('99acres', user)).toMatchObject({ stored: 0, recorded: 0, already: 101 });
    const commands = service.roundTrips.commands();
    expect(commands.filter((command) => command === 'BatchGetItemCommand')).toHaveLength(2);
    expect(commands.filter((command) => /Transact|Put|BatchWrite/.test(command))).toEqual([]);
    expect(await service.leadsOf(accountId)).toHaveLength(101);
  }, 90_000);

  it.each(['ignore', 'create', 'merge'] as const)('a buyer enquiring twice is one original and the duplicate setting decides the second (%s)', async (setting) => {
    const { accountId, user, fake } = await connected(setting);
    const mobile = uniqueMobile();
    fake.add({ id: 'D-1', receivedOn: istText(at(-2 * HOUR)), name: 'Twice', phone: mobile });
    fake.add({ id: 'D-2', receivedOn: istText(at(-HOUR)), name: 'Twice', phone: mobile });

    await service.pull('99acres', user);
    await service.pull('99acres', user);

    const leads = await service.leadsOf(accountId);
    const original = leads.find((lead) => !lead.is_repeated)!;
    expect(original).toBeDefined();
    if (setting === 'ignore') {
      expect(leads).toHaveLength(1);
      expect(await service.rejectionsOf(accountId)).toEqual([expect.objectContaining({ reason: 'duplicate_lead', endpoint: '99acres', portal_enquiry_id: expect.any(String) })]);
    } else {
      expect(leads).toHaveLength(2);
      const repeat = leads.find((lead) => lead.is_repeated)!;
      expect(repeat.parent_lead_id).toBe(setting === 'merge' ? original.id : null);
    }
  });

  it('an erased buyer’s enquiry is never pulled back in', async () => {
    const { accountId, user, fake } = await connected();
    const mobile = uniqueMobile();
    fake.add({ id: 'E-1', receivedOn: istText(at(-10 * 60_000)), name: 'Forget me', phone: mobile });
    await service.pull('99acres', user);

    await new PersonData(service.repository.accounts, service.repository.people).erase(accountId, { mobile_number: mobile });
    clock = at(60_000);
    expect(await service.pull('99acres', user)).toMatchObject({ stored: 0, already: 1 });
    expect(await service.leadsOf(accountId)).toEqual([]);
  });

  it('two pulls of one login at once: one pulls, the other finds it busy, and each enquiry is one lead', async () => {
    const { accountId, user, fake } = await connected();
    for (let i = 0; i < 5; i++) fake.add({ id: `C-${i}`, receivedOn: istText(at(-HOUR)), name: `Buyer ${i}`, phone: uniqueMobile() });

    const outcomes = await Promise.all([service.pull('99acres', user), service.pull('99acres', user)]);

    expect(outcomes.filter((outcome) => outcome === 'busy')).toHaveLength(1);
    expect(outcomes.find((outcome) => outcome !== 'busy')).toMatchObject({ stored: 5 });
    expect(await service.leadsOf(accountId)).toHaveLength(5);
  });

  it('a removed login is not pulled again, and its leads stay', async () => {
    const { accountId, user, fake } = await connected();
    fake.add({ id: 'R-1', receivedOn: istText(at(-HOUR)), name: 'Kept', phone: uniqueMobile() });
    await service.pull('99acres', user);

    await removePortalLogin(service.admin, accountId, '99acres', user);
    fake.add({ id: 'R-2', receivedOn: istText(at(-HOUR)), name: 'Not pulled', phone: uniqueMobile() });
    const asked = requestsOf(user).length;

    expect(await service.pull('99acres', user)).toBe('not_connected');
    expect(requestsOf(user)).toHaveLength(asked);
    expect((await service.leadsOf(accountId)).map((lead) => lead.name)).toEqual(['Kept']);
  });
});

describe('a login that keeps failing', () => {
  it('turns failing once after portalFailingMinutes of refused credentials, and recovers once', async () => {
    const { accountId, user, password, fake } = await connected();
    fake.setPassword('changed on the portal');
    const start = clock;

    await service.pull('99acres', user);
    clock = at(20 * 60_000);
    await service.pull('99acres', user);
    expect(service.events.filter((event) => event.detail.login === user)).toEqual([]);
    clock = at(11 * 60_000);
    await service.pull('99acres', user);
    clock = at(5 * 60_000);
    await service.pull('99acres', user);

    const failing = service.events.filter((event) => event.detail.login === user);
    expect(failing).toEqual([
      {
        detailType: 'Portal Failing',
        detail: { account_id: accountId, portal: '99acres', login: user, since: start.toISOString(), reason: 'credential_refused', message: expect.stringContaining('Authentication failed') },
      },
    ]);
    const [listed] = await service.logins.list(accountId);
    expect(listed).toMatchObject({ failing: { since: start.toISOString(), reason: 'credential_refused' } });

    fake.setPassword(password);
    clock = at(5 * 60_000);
    await service.pull('99acres', user);
    clock = at(5 * 60_000);
    await service.pull('99acres', user);
    expect(service.events.filter((event) => event.detail.login === user).map((event) => event.detailType)).toEqual(['Portal Failing', 'Portal Recovered']);
    expect(service.events.at(-1)!.detail).toEqual({ account_id: accountId, portal: '99acres', login: user, failing_since: start.toISOString(), recovered_at: at(-5 * 60_000).toISOString() });
    expect((await service.logins.list(accountId))[0]).not.toHaveProperty('failing');
  });

  it('logs the account, portal, login, window and counts, never the password, the name, the number or the e-mail', async () => {
    const { user, password, fake } = await connected();
    const mobile = uniqueMobile();
    fake.add({ id: 'L-1', receivedOn: istText(at(-HOUR)), name: 'Secret Name', phone: mobile, email: 'secret@example.in' });
    await service.pull('99acres', user);
    fake.setPassword('other');
    await service.pull('99acres', user);

    const lines = JSON.stringify(service.pullLogs.filter((line) => line.login === user));
    expect(lines).toContain('"stored":1');
    for (const secret of [password, 'Secret Name', mobile, 'secret@example.in', 'example.in']) expect(lines).not.toContain(secret);
  });
});
