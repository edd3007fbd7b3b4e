import { beforeAll, describe, expect, it } from '@jest/globals';
import { failFirst, injectFaults, namedError } from '../support/faults.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-r', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] }, website: ['Skyline landing page'], social: ['fb'] });
  apiKey = await service.issueKey('acc-r');
});

const lastRejection = async () => (await service.repository.rejections.listRejections('acc-r')).at(-1);

describe('the rejected-submissions log', () => {
  it('records a duplicate under Ignore with time, endpoint, reason and a masked mobile', async () => {
    const mobile = uniqueMobile();
    await service.call('portala', { apiKey, body: validBody('portala', project, { mobile_number: mobile }) });
    const answer = await service.call('portalb', { apiKey, body: validBody('portalb', project, { mobile_number: mobile }) });

    const rejection = await lastRejection();
    expect(rejection).toMatchObject({
      requestId: answer.headers['x-request-id'],
      endpoint: 'portalb',
      reason: 'duplicate_lead',
      message: 'Lead already exists',
      mobile: `******${mobile.slice(-4)}`,
      fields: { projectID: 'PRJ-1' },
    });
    expect(Date.now() - Date.parse(rejection!.at)).toBeLessThan(60_000);
    expect(JSON.stringify(rejection)).not.toContain(mobile);
  });

  it.each([
    ['a field validation failure', 'portala', { name: 'x', mobile_number: '12345' }, 'validation', { mobile_number: expect.any(Array) }],
    ['an unknown sub source', 'website', validBody('website', project, { sub_source: 'Old page' }), 'sub_source_not_found', { sub_source: 'Old page' }],
    ['an unknown project', 'portala', validBody('portala', { projectID: 'PRJ-9', campaignID: 'CMP-1' }), 'project_not_found', { projectID: 'PRJ-9' }],
    ['a campaign of another project', 'portala', validBody('portala', { projectID: 'PRJ-1', campaignID: 'CMP-2' }), 'campaign_not_found', { projectID: 'PRJ-1', campaignID: 'CMP-2' }],
  ] as const)('records %s with the rejected fields', async (_, name, body, reason, fields) => {
    const answer = await service.call(name, { apiKey, body });
    expect(answer.status).toBe(422);
    expect(await lastRejection()).toMatchObject({ endpoint: name, reason, message: answer.body.message, fields });
  });

  it('does not record refusals that are not 422', async () => {
    const before = (await service.repository.rejections.listRejections('acc-r')).length;
    await service.call('portala', { apiKey, rawBody: '{broken' });
    await service.call('portala', { apiKey: 'wrong', body: validBody('portala', project) });
    expect((await service.repository.rejections.listRejections('acc-r')).length).toBe(before);
  });

  it('lists from a given time', async () => {
    const since = new Date().toISOString();
    await service.call('portala', { apiKey, body: validBody('portala', { projectID: 'PRJ-8', campaignID: 'CMP-1' }) });
    const listed = await service.repository.rejections.listRejections('acc-r', since);
    expect(listed.map((r) => r.fields)).toEqual([{ projectID: 'PRJ-8' }]);
  });

  it('answers 503 with Retry-After, never the 422 over a lost record, when recording fails (CONTRACT.md section 14)', async () => {
    // The record and its person lookup items are one BatchWriteItem (CONTRACT.md section 12).
    const faults = failFirst('BatchWriteItemCommand', 1, () => namedError('ThrottlingException'));
    const faulty = await testService({ instrument: (client) => injectFaults(client, faults.fault) });
    await faulty.seedAccount({ id: 'acc-f', projects: { 'PRJ-1': ['CMP-1'] } });
    const key = await faulty.issueKey('acc-f');
    faults.arm();
    const answer = await faulty.call('portala', { apiKey: key, body: validBody('portala', { projectID: 'PRJ-X', campaignID: 'CMP-1' }) });
    expect(faults.failures()).toBe(1);
    expect(answer).toMatchObject({ status: 503, body: { status: false, message: 'Service temporarily unavailable, please retry' } });
    expect(answer.headers['retry-after']).toBe('1');
    expect(await faulty.repository.rejections.listRejections('acc-f')).toEqual([]);
  });
});
