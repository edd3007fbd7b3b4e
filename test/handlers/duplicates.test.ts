import { beforeAll, describe, expect, it } from '@jest/globals';
import type { DuplicateSetting, LeadRecord } from '../../shared/domain/lead.ts';
import { failFirst, injectFaults, transactionConflict } from '../support/faults.ts';
import { randomUUID } from 'node:crypto';
import { endpointNames, testService, uniqueMobile, untilAnswered, validBody, type TestService } from '../support/service.ts';

let service: TestService;
const keys: Record<DuplicateSetting, string> = { ignore: '', create: '', merge: '' };
const settings: DuplicateSetting[] = ['ignore', 'create', 'merge'];
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

const accountOf = (setting: DuplicateSetting) => `acc-${setting}`;

beforeAll(async () => {
  service = await testService();
  for (const setting of settings) {
    await service.seedAccount({
      id: accountOf(setting),
      duplicateSetting: setting,
      projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] },
      website: ['Skyline landing page'],
      social: ['fb', 'ig', 'wp'],
    });
    keys[setting] = await service.issueKey(accountOf(setting));
  }
});

const leadsWith = async (setting: DuplicateSetting, mobile: string, projectId = 'PRJ-1'): Promise<LeadRecord[]> =>
  (await service.repository.leadArchive.listLeads(accountOf(setting), [projectId])).filter((lead) => lead.mobile_number === mobile);

describe('a duplicate under Ignore', () => {
  it('answers 422 Lead already exists and stores nothing', async () => {
    const mobile = uniqueMobile();
    expect((await service.call('portala', { apiKey: keys.ignore, body: validBody('portala', project, { mobile_number: mobile }) })).status).toBe(200);
    const answer = await service.call('website', { apiKey: keys.ignore, body: validBody('website', project, { mobile_number: `+91 ${mobile}` }) });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ status: false, message: 'Lead already exists' });
    expect(await leadsWith('ignore', mobile)).toHaveLength(1);
  });

  it.each(endpointNames)('is refused on %s whatever endpoint stored the original', async (name) => {
    const mobile = uniqueMobile();
    await service.call('social', { apiKey: keys.ignore, body: validBody('social', project, { mobile_number: mobile }) });
    const answer = await service.call(name, { apiKey: keys.ignore, body: validBody(name, project, { mobile_number: mobile }) });
    expect(answer).toMatchObject({ status: 422, body: { message: 'Lead already exists' } });
  });

  it('is not a duplicate in another project of the account', async () => {
    const mobile = uniqueMobile();
    await service.call('portala', { apiKey: keys.ignore, body: validBody('portala', project, { mobile_number: mobile }) });
    const answer = await service.call('portala', { apiKey: keys.ignore, body: validBody('portala', { projectID: 'PRJ-2', campaignID: 'CMP-2' }, { mobile_number: mobile }) });
    expect(answer.status).toBe(200);
    expect(answer.body.data.is_repeated).toBe(false);
  });

  it('is not a duplicate of the same project id in another account', async () => {
    const mobile = uniqueMobile();
    await service.call('portala', { apiKey: keys.create, body: validBody('portala', project, { mobile_number: mobile }) });
    const answer = await service.call('portala', { apiKey: keys.ignore, body: validBody('portala', project, { mobile_number: mobile }) });
    expect(answer.status).toBe(200);
  });
});

describe('a duplicate under Create', () => {
  it('is stored, marked repeated, with no parent', async () => {
    const mobile = uniqueMobile();
    const first = await service.call('portala', { apiKey: keys.create, body: validBody('portala', project, { mobile_number: mobile }) });
    const second = await service.call('portalb', { apiKey: keys.create, body: validBody('portalb', project, { mobile_number: mobile }) });
    expect(first.body.data).toMatchObject({ is_repeated: false, parent_lead_id: null });
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ is_repeated: true, parent_lead_id: null, source: 'portalb' });
    expect(await leadsWith('create', mobile)).toEqual([first.body.data, second.body.data]);
  });
});

describe('a duplicate under Merge', () => {
  it('is stored, marked repeated, and linked to the original, never to another repeat', async () => {
    const mobile = uniqueMobile();
    const original = await service.call('website', { apiKey: keys.merge, body: validBody('website', project, { mobile_number: mobile }) });
    const repeat1 = await service.call('portala', { apiKey: keys.merge, body: validBody('portala', project, { mobile_number: mobile }) });
    const repeat2 = await service.call('portalb', { apiKey: keys.merge, body: validBody('portalb', project, { mobile_number: mobile }) });
    expect(repeat1.body.data).toMatchObject({ is_repeated: true, parent_lead_id: original.body.data.id });
    expect(repeat2.body.data).toMatchObject({ is_repeated: true, parent_lead_id: original.body.data.id });
    expect(await leadsWith('merge', mobile)).toHaveLength(3);
  });
});

describe.each(settings)('25 simultaneous requests for one new mobile under %s', (setting) => {
  it('make exactly one original, and store exactly the leads answered 200', async () => {
    const mobile = uniqueMobile();
    // Each under a key of its own, a 503 (a deadline passed on a busy machine) sent again as a sender would.
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) => {
        const name = endpointNames[i % endpointNames.length]!;
        const request = { apiKey: keys[setting], body: validBody(name, project, { mobile_number: mobile }), headers: { 'idempotency-key': randomUUID() } };
        return untilAnswered(() => service.call(name, request));
      }),
    );
    const stored = await leadsWith(setting, mobile);
    const originals = stored.filter((lead) => !lead.is_repeated);
    const accepted = answers.filter((answer) => answer.status === 200);

    expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 422)).toEqual([]);
    expect(originals).toHaveLength(1);
    expect(stored).toHaveLength(accepted.length);
    if (setting === 'ignore') {
      expect(accepted).toHaveLength(1);
      expect(answers.filter((a) => a.status === 422 && a.body.message === 'Lead already exists')).toHaveLength(24);
    } else {
      expect(accepted).toHaveLength(25);
      const expectedParent = setting === 'merge' ? originals[0]!.id : null;
      for (const repeat of stored.filter((lead) => lead.is_repeated)) expect(repeat.parent_lead_id).toBe(expectedParent);
    }
  }, 120_000);
});

describe('a transaction DynamoDB cancels for a conflicting writer', () => {
  it('is retried, and the lead is stored once', async () => {
    const conflicts = failFirst('TransactWriteItemsCommand', 2, transactionConflict);
    const faulty = await testService({ instrument: (client) => injectFaults(client, conflicts.fault) });
    await faulty.seedAccount({ id: 'acc-x', projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await faulty.issueKey('acc-x');
    const mobile = uniqueMobile();
    conflicts.arm();

    const answer = await faulty.call('portala', { apiKey: key, body: validBody('portala', project, { mobile_number: mobile }) });

    expect(conflicts.failures()).toBe(2);
    expect(answer.status).toBe(200);
    expect((await faulty.repository.leadArchive.listLeads('acc-x', ['PRJ-1'])).filter((l) => l.mobile_number === mobile)).toHaveLength(1);
    expect(await faulty.repository.leadArchive.checkIntegrity()).toEqual([]);
  });

  it('answers 503 with Retry-After when conflicts outlast the retries, storing nothing', async () => {
    const conflicts = failFirst('TransactWriteItemsCommand', 100, transactionConflict);
    const faulty = await testService({ instrument: (client) => injectFaults(client, conflicts.fault), retry: { attempts: 3, baseDelayMs: 1 } });
    await faulty.seedAccount({ id: 'acc-x', projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await faulty.issueKey('acc-x');
    conflicts.arm();

    const answer = await faulty.call('portala', { apiKey: key, body: validBody('portala', project) });

    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ status: false, message: 'Service temporarily unavailable, please retry' });
    expect(answer.headers['retry-after']).toBe('1');
    expect(conflicts.failures()).toBe(3);
    expect(await faulty.repository.leadArchive.listLeads('acc-x', ['PRJ-1'])).toHaveLength(0);
    expect(await faulty.repository.leadArchive.checkIntegrity()).toEqual([]);
  });
});

describe('the store after every duplicate above', () => {
  it('holds a claim for each original, a lead for each claim, and repeats linked to originals', async () => {
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });

  it('is reported broken when a lead lacks its claim', async () => {
    const broken = await testService();
    const lead = { id: '01J00000000000000000000000', name: 'x', mobile_number: '9876543210', projectID: 'P', campaignID: 'C', source: 'portala', sub_source: null, is_repeated: true, parent_lead_id: null, created_at: new Date().toISOString() } as const;
    await broken.repository.leads.insertRepeat('acc-x', lead);
    expect(await broken.repository.leadArchive.checkIntegrity()).toEqual(['lead 01J00000000000000000000000 has no mobile claim']);
  });
});
