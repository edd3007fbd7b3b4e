import { beforeAll, describe, expect, it } from '@jest/globals';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { endpointNames, testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

let service: TestService;
const keys: Partial<Record<DuplicateSetting, string>> = {};
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  for (const setting of ['ignore', 'merge'] as const) {
    await service.seedAccount({ id: `acc-${setting}`, duplicateSetting: setting, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
    keys[setting] = await service.issueKey(`acc-${setting}`);
  }
});

const dryRun = (setting: DuplicateSetting, name: (typeof endpointNames)[number], body: object) =>
  service.call(name, { apiKey: keys[setting]!, body, headers: { 'x-dry-run': 'true' } });
const leadsOf = (setting: DuplicateSetting) => service.repository.leadArchive.listLeads(`acc-${setting}`, ['PRJ-1']);

describe('a dry run', () => {
  it.each(endpointNames)('on %s answers the would-be lead and stores nothing', async (name) => {
    const before = (await leadsOf('ignore')).length;
    const answer = await dryRun('ignore', name, validBody(name, project));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: true, message: 'Lead would be created', dry_run: true, data: { source: name, is_repeated: false } });
    expect((await leadsOf('ignore')).length).toBe(before);
  });

  it('runs the duplicate check: under Ignore it answers Lead already exists', async () => {
    const mobile = uniqueMobile();
    await service.call('portala', { apiKey: keys.ignore!, body: validBody('portala', project, { mobile_number: mobile }) });
    const answer = await dryRun('ignore', 'website', validBody('website', project, { mobile_number: mobile }));
    expect(answer).toMatchObject({ status: 422, body: { status: false, message: 'Lead already exists' } });
  });

  it('shows a repeat under Merge linked to the original, without storing it', async () => {
    const mobile = uniqueMobile();
    const original = await service.call('portala', { apiKey: keys.merge!, body: validBody('portala', project, { mobile_number: mobile }) });
    const answer = await dryRun('merge', 'portalb', validBody('portalb', project, { mobile_number: mobile }));
    expect(answer.body.data).toMatchObject({ is_repeated: true, parent_lead_id: original.body.data.id });
    expect((await leadsOf('merge')).filter((lead) => lead.mobile_number === mobile)).toHaveLength(1);
  });

  it('answers the exact error of every other check', async () => {
    expect((await dryRun('ignore', 'website', validBody('website', project, { sub_source: 'nope' }))).body.message).toBe('Sub source not found');
    expect((await dryRun('ignore', 'portala', validBody('portala', { projectID: 'X', campaignID: 'CMP-1' }))).body.message).toBe('Project not found');
    expect((await dryRun('ignore', 'portala', { name: 'x' })).body.errors).toHaveProperty('mobile_number');
  });

  it('leaves no rejection on record', async () => {
    const before = (await service.repository.rejections.listRejections('acc-ignore')).length;
    await dryRun('ignore', 'portala', { name: 'x' });
    expect((await service.repository.rejections.listRejections('acc-ignore')).length).toBe(before);
  });

  it('is only a dry run when the header says true', async () => {
    const answer = await service.call('portala', { apiKey: keys.ignore!, body: validBody('portala', project), headers: { 'x-dry-run': 'no' } });
    expect(answer.body.message).toBe('Lead created successfully');
  });
});
