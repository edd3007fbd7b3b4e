/**
 * What every portal of the registry keeps, whatever its wire (CONTRACT.md section 17), as
 * test/sources/every-source.test.ts holds every pushed source to its promises: one suite over
 * shared/portals/registry.ts, each portal driven by test/support/portal-drivers.ts against its fake,
 * against DynamoDB Local. A portal's own test file keeps only its wire's rules.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { portals, type PortalName } from '../../shared/portals/registry.ts';
import type { PullSummary } from '../../shared/pulled/pull.ts';
import { portalDrivers, type PortalDriver } from '../support/portal-drivers.ts';
import { portalTestService, type PortalTestService } from '../support/portal-service.ts';
import { uniqueMobile } from '../support/service.ts';

const MINUTE = 60_000;
let service: PortalTestService;
const drivers = new Map<string, PortalDriver>();
let sequence = 0;

beforeAll(async () => {
  for (const { source } of portals) drivers.set(source.name, await portalDrivers[source.name as PortalName]());
  service = await portalTestService({ baseUrls: Object.fromEntries([...drivers].map(([name, driver]) => [name, driver.url])), http: { timeoutMs: 2_000 } });
});
afterAll(async () => {
  await Promise.all([...drivers.values()].map((driver) => driver.close()));
});

describe('the portal registry', () => {
  it('has a driver for every portal, so none escapes this suite', () => {
    expect(portals.map(({ source }) => source.name).filter((name) => !(name in portalDrivers))).toEqual([]);
  });
});

describe.each(portals.map(({ source }) => [source.name, source] as const))('the %s portal', (name, source) => {
  /** A fresh account with PRJ-1/CMP-1 and a login of it connected now, with the credential its portal knows. */
  const connected = async (duplicateSetting: DuplicateSetting = 'ignore') => {
    const accountId = `every-${name}-${++sequence}`;
    await service.seedAccount({ id: accountId, duplicateSetting, projects: { 'PRJ-1': ['CMP-1'] } });
    const login = `every-${name}-login-${sequence}-${Date.now().toString(36)}`;
    const credential = `secret-${sequence}-${Date.now().toString(36)}`;
    const portal = drivers.get(name)!.login(login, credential);
    await service.connect({ accountId, portal: name, login, credential });
    return { accountId, login, credential, portal };
  };
  const pull = async (login: string) => (await service.pull(name, login)) as PullSummary;
  const leadsOf = async (accountId: string, mobile: string) => (await service.leadsOf(accountId)).filter((lead) => lead.mobile_number === mobile);
  const personOf = (accountId: string, mobile: string) => service.repository.people.findPerson(accountId, { kind: 'mobile', value: mobile });
  const enquiryId = () => `E${Date.now().toString(36)}${++sequence}`;

  it('stores nothing and keeps its watermark when the portal refuses the credential', async () => {
    const { accountId, login } = await connected();
    await service.connect({ accountId, portal: name, login, credential: 'a-wrong-credential' });
    const mobile = uniqueMobile();
    drivers.get(name)!.login(`${login}-other`, 'x'); // the portal knows other logins, not this credential
    expect(await pull(login)).toEqual({ stored: 0, recorded: 0, already: 0, pulled_through: null });
    expect(await personOf(accountId, mobile)).toEqual({ leads: [], rejections: [] });
    expect((await service.logins.find(name, login))?.pulledThrough).toBeUndefined();
  });

  it('makes an enquiry a lead with its source, login and enquiry id, and a pull of it again stores nothing more', async () => {
    const { accountId, login, portal } = await connected();
    const mobile = uniqueMobile();
    portal.enquire({ id: enquiryId(), mobile, email: `asha.${sequence}@example.in`, at: new Date(Date.now() - 10 * MINUTE) });
    // (A day-granular portal answers the day for each slice of the first window: its second answer counts as already.)
    expect(await pull(login)).toMatchObject({ stored: 1, recorded: 0 });
    const [lead, ...others] = await leadsOf(accountId, mobile);
    expect(others).toEqual([]);
    expect(lead).toMatchObject({ source: source.leadSource, sub_source: null, portal_login: login, portal_enquiry_id: expect.any(String), projectID: 'PRJ-1', campaignID: 'CMP-1', is_repeated: false });
    // The overlap reads it again: already stored, nothing written, nothing recorded.
    const again = await pull(login);
    expect([again.stored, again.recorded, again.already > 0]).toEqual([0, 0, true]);
    expect(await leadsOf(accountId, mobile)).toHaveLength(1);
    expect((await personOf(accountId, mobile)).rejections).toEqual([]);
  });

  describe.each(['ignore', 'create', 'merge'] as const)('under the duplicate setting %s', (setting: DuplicateSetting) => {
    it('stores one lead, an original, when ten pulls of its login start at once', async () => {
      const { accountId, login, portal } = await connected(setting);
      const mobile = uniqueMobile();
      portal.enquire({ id: enquiryId(), mobile, at: new Date(Date.now() - 10 * MINUTE) });
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => service.pull(name, login)));
      // One holds the lease; the others find it busy (or come after it, finding the enquiry stored).
      expect(outcomes.filter((outcome) => typeof outcome === 'object' && outcome.stored === 1)).toHaveLength(1);
      expect(outcomes.filter((outcome) => typeof outcome === 'string' && outcome !== 'busy')).toEqual([]);
      expect(await leadsOf(accountId, mobile)).toEqual([expect.objectContaining({ is_repeated: false, parent_lead_id: null })]);
      expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
    });
  });

  it("records a refused enquiry under its name, and erasure reaches the person's lead and record for good", async () => {
    const { accountId, login, portal } = await connected('ignore');
    const mobile = uniqueMobile();
    // Inside the next pulls' overlap (15 minutes before the watermark): every pull reads both again.
    const at = Date.now() - 10 * MINUTE;
    portal.enquire({ id: enquiryId(), mobile, at: new Date(at) });
    portal.enquire({ id: enquiryId(), mobile, at: new Date(at + MINUTE) });
    expect(await pull(login)).toMatchObject({ stored: 1, recorded: 1 });
    const found = await personOf(accountId, mobile);
    expect(found.leads).toHaveLength(1);
    expect(found.rejections).toEqual([expect.objectContaining({ endpoint: name, reason: 'duplicate_lead', portal_login: login, portal_enquiry_id: expect.any(String) })]);
    expect(await service.repository.people.erasePerson(accountId, { kind: 'mobile', value: mobile })).toEqual({ leads: 1, rejections: 1, alternate_numbers: 0 });
    // Pulled again (the overlap): neither enquiry brings the person back.
    const again = await pull(login);
    expect([again.stored, again.recorded, again.already >= 2]).toEqual([0, 0, true]);
    expect(await personOf(accountId, mobile)).toEqual({ leads: [], rejections: [] });
    // The person's next enquiry is a new original.
    portal.enquire({ id: enquiryId(), mobile, at: new Date(Date.now() - MINUTE) });
    expect(await pull(login)).toMatchObject({ stored: 1 });
    expect(await leadsOf(accountId, mobile)).toEqual([expect.objectContaining({ is_repeated: false, parent_lead_id: null })]);
  });

  it('records an enquiry from a number abroad under reason validation, naming its login and enquiry', async () => {
    const { accountId, login, portal } = await connected();
    const since = new Date(Date.now() - 1).toISOString();
    portal.enquire({ id: enquiryId(), mobile: '7700900123', countryCode: '44', at: new Date(Date.now() - 5 * MINUTE) });
    expect(await pull(login)).toMatchObject({ stored: 0, recorded: 1 });
    const records = await service.repository.rejections.listRejections(accountId, since);
    expect(records).toEqual([expect.objectContaining({ endpoint: name, reason: 'validation', portal_login: login, portal_enquiry_id: expect.any(String), fields: { mobile_number: [expect.any(String)] } })]);
  });

  it('never writes its credential, a mobile number or an e-mail in a log line', async () => {
    const { login, credential, portal } = await connected();
    const mobile = uniqueMobile();
    const email = `ravi.${sequence}@verma-family.example`;
    const from = { pull: service.pullLogs.length, service: service.logs.length };
    portal.enquire({ id: enquiryId(), mobile, email, at: new Date(Date.now() - 3 * MINUTE) });
    portal.enquire({ id: enquiryId(), mobile, email, at: new Date(Date.now() - 2 * MINUTE) });
    await pull(login);
    const lines = [...service.pullLogs.slice(from.pull), ...service.logs.slice(from.service)].map((line) => JSON.stringify(line));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => [credential, mobile, email, 'verma-family'].some((text) => line.includes(text)))).toEqual([]);
  });
});
