import { beforeAll, describe, expect, it } from '@jest/globals';
import { endpointNames, testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({
    id: 'acc-a',
    projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] },
    website: ['Skyline landing page'],
    social: ['fb', 'ig'],
  });
  await service.seedAccount({ id: 'acc-b', projects: { 'PRJ-B': ['CMP-B'] }, website: ['Other page'], social: ['fb', 'ig', 'wp'] });
  keyA = await service.issueKey('acc-a');
  keyB = await service.issueKey('acc-b');
});

const leadsOf = async (accountId: string) => service.repository.leadArchive.listLeads(accountId, ['PRJ-1', 'PRJ-2', 'PRJ-B']);

describe.each(endpointNames)('project and campaign on %s', (name) => {
  it('answers 422 Project not found for a project the account does not have', async () => {
    const answer = await service.call(name, { apiKey: keyA, body: validBody(name, { projectID: 'PRJ-404', campaignID: 'CMP-1' }) });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ status: false, message: 'Project not found' });
  });

  it('answers 422 Campaign not found for a campaign the account does not have', async () => {
    const answer = await service.call(name, { apiKey: keyA, body: validBody(name, { projectID: 'PRJ-1', campaignID: 'CMP-404' }) });
    expect(answer).toMatchObject({ status: 422, body: { status: false, message: 'Campaign not found' } });
  });

  it('rejects a campaign of another project', async () => {
    const answer = await service.call(name, { apiKey: keyA, body: validBody(name, { projectID: 'PRJ-1', campaignID: 'CMP-2' }) });
    expect(answer).toMatchObject({ status: 422, body: { message: 'Campaign not found' } });
  });

  it("never reaches another account's project or campaign", async () => {
    const before = (await leadsOf('acc-b')).length;
    const project = await service.call(name, { apiKey: keyA, body: validBody(name, { projectID: 'PRJ-B', campaignID: 'CMP-B' }) });
    expect(project.body.message).toBe('Project not found');
    const campaign = await service.call(name, { apiKey: keyA, body: validBody(name, { projectID: 'PRJ-1', campaignID: 'CMP-B' }) });
    expect(campaign.body.message).toBe('Campaign not found');
    expect((await leadsOf('acc-b')).length).toBe(before);
  });
});

describe('sub sources', () => {
  it('answers 422 Sub source not found for a website sub source the account does not have', async () => {
    const answer = await service.call('website', { apiKey: keyA, body: validBody('website', { projectID: 'PRJ-1', campaignID: 'CMP-1' }, { sub_source: 'Unknown page' }) });
    expect(answer).toMatchObject({ status: 422, body: { status: false, message: 'Sub source not found' } });
  });

  it('matches website sub sources exactly, case-sensitive', async () => {
    const answer = await service.call('website', { apiKey: keyA, body: validBody('website', { projectID: 'PRJ-1', campaignID: 'CMP-1' }, { sub_source: 'skyline landing page' }) });
    expect(answer.body.message).toBe('Sub source not found');
  });

  it("does not accept another account's website sub source", async () => {
    const answer = await service.call('website', { apiKey: keyA, body: validBody('website', { projectID: 'PRJ-1', campaignID: 'CMP-1' }, { sub_source: 'Other page' }) });
    expect(answer.body.message).toBe('Sub source not found');
  });

  it.each([
    ['a platform outside fb, ig and wp', 'tiktok'],
    ['an upper-case platform', 'FB'],
    ['a platform the account has not enabled', 'wp'],
  ])('answers 422 Sub source not found on social for %s', async (_, platform) => {
    const answer = await service.call('social', { apiKey: keyA, body: validBody('social', { projectID: 'PRJ-1', campaignID: 'CMP-1' }, { platform }) });
    expect(answer).toMatchObject({ status: 422, body: { status: false, message: 'Sub source not found' } });
  });

  it('checks the sub source before the project, and the project before the campaign', async () => {
    const all = await service.call('website', { apiKey: keyA, body: validBody('website', { projectID: 'PRJ-404', campaignID: 'CMP-404' }, { sub_source: 'nope' }) });
    expect(all.body.message).toBe('Sub source not found');
    const both = await service.call('portala', { apiKey: keyA, body: validBody('portala', { projectID: 'PRJ-404', campaignID: 'CMP-404' }) });
    expect(both.body.message).toBe('Project not found');
  });

  it('checks fields before the sub source, project and campaign', async () => {
    const answer = await service.call('social', { apiKey: keyA, body: { name: 'x', mobile_number: '123', projectID: 'PRJ-404', campaignID: 'CMP-404', platform: 'nope' } });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toHaveProperty('mobile_number');
  });
});

describe('a configuration cached by a warm container', () => {
  it('finds a project, campaign and sub source created after the cache was filled', async () => {
    await service.seedAccount({ id: 'acc-c', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Page 1'] });
    const key = await service.issueKey('acc-c');
    expect((await service.call('website', { apiKey: key, body: validBody('website', { projectID: 'PRJ-1', campaignID: 'CMP-1' }, { sub_source: 'Page 1' }) })).status).toBe(200);

    await service.seedAccount({ id: 'acc-c', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-NEW': ['CMP-NEW'] }, website: ['Page 1', 'Page 2'] });
    const answer = await service.call('website', {
      apiKey: key,
      body: validBody('website', { projectID: 'PRJ-NEW', campaignID: 'CMP-NEW' }, { sub_source: 'Page 2', mobile_number: uniqueMobile() }),
    });
    expect(answer.status).toBe(200);
  });
});
