import { beforeAll, describe, expect, it } from '@jest/globals';
import { endpointNames, testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({
    id: 'acc-demo',
    projects: { 'PRJ-1': ['CMP-1', 'CMP-2'], 'PRJ-2': ['CMP-3'] },
    website: ['Skyline landing page', 'Riverside page'],
    social: ['fb', 'ig'],
  });
  apiKey = await service.issueKey('acc-demo');
});

describe('creating a lead', () => {
  it.each(['website', 'portala', 'portalb'] as const)('answers 200 with the stored lead on %s', async (name) => {
    const body = validBody(name, project, { email: 'asha@example.com' });
    const answer = await service.call(name, { apiKey, body });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: true, message: 'Lead created successfully' });
    const lead = answer.body.data;
    expect(lead).toMatchObject({
      name: 'Asha Verma',
      mobile_number: body.mobile_number,
      email: 'asha@example.com',
      projectID: 'PRJ-1',
      campaignID: 'CMP-1',
      source: name,
      is_repeated: false,
      parent_lead_id: null,
    });
    expect(lead.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Date(lead.created_at).toISOString()).toBe(lead.created_at);
    expect(await service.repository.leadArchive.listLeads('acc-demo', ['PRJ-1'])).toContainEqual(lead);
  });

  it('answers the social endpoint without data, and stores the platform as sub source and platform', async () => {
    const body = validBody('social', project, { platform: 'ig', social_ad: 'Diwali carousel' });
    const answer = await service.call('social', { apiKey, body });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: true, message: 'Lead created successfully' });
    const stored = (await service.repository.leadArchive.listLeads('acc-demo', ['PRJ-1'])).find((l) => l.mobile_number === body.mobile_number);
    expect(stored).toMatchObject({ source: 'social', sub_source: 'ig', platform: 'ig', social_ad: 'Diwali carousel' });
  });

  it('tags a website lead with its sub source and keeps the optional website fields, not unknown ones', async () => {
    const body = validBody('website', project, {
      sub_source: 'Riverside page',
      utm_source: 'google',
      gclid: 'abc123',
      visitor_ip: '2001:db8::1',
      favourite_colour: 'blue',
    });
    const { body: answer } = await service.call('website', { apiKey, body });

    expect(answer.data).toMatchObject({ source: 'website', sub_source: 'Riverside page', utm_source: 'google', gclid: 'abc123', visitor_ip: '2001:db8::1' });
    expect(answer.data).not.toHaveProperty('favourite_colour');
  });

  it('stores portal leads with a null sub source', async () => {
    const { body } = await service.call('portalb', { apiKey, body: validBody('portalb', project) });
    expect(body.data.sub_source).toBeNull();
    expect(body.data.notes).toBe('Wants a site visit');
  });

  it('answers with exactly the stored record, and no internal attributes', async () => {
    const { body } = await service.call('website', { apiKey, body: validBody('website', project) });
    const stored = (await service.repository.leadArchive.listLeads('acc-demo', ['PRJ-1'])).find((l) => l.id === body.data.id);
    expect(stored).toEqual(body.data);
    for (const internal of ['pk', 'sk', 'item_type', 'account_id']) expect(body.data).not.toHaveProperty(internal);
  });

  it.each(endpointNames)('sets x-request-id and a JSON content type on %s', async (name) => {
    const answer = await service.call(name, { apiKey, body: validBody(name, project) });
    expect(answer.headers['x-request-id']).toMatch(/\S+/);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('gives leads ids that sort in creation order', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await service.call('portala', { apiKey, body: validBody('portala', project) })).body.data.id);
    expect([...ids].sort()).toEqual(ids);
  });

  it('stores a lead normalised: trimmed text, 10-digit mobile numbers', async () => {
    const { body } = await service.call('portala', {
      apiKey,
      body: { name: '  Ravi Kumar  ', mobile_number: '+91 98765 11111', alternate_number: '0091-87654-22222', projectID: ' PRJ-1 ', campaignID: 'CMP-1', notes: ' 3 BHK ' },
    });
    expect(body.data).toMatchObject({ name: 'Ravi Kumar', mobile_number: '9876511111', alternate_number: '8765422222', projectID: 'PRJ-1', notes: '3 BHK' });
  });

  it('leaves absent optional fields out of the record', async () => {
    const { body } = await service.call('website', { apiKey, body: validBody('website', project, { email: '', profession: null }) });
    expect(body.data).not.toHaveProperty('email');
    expect(body.data).not.toHaveProperty('profession');
    expect(body.data).not.toHaveProperty('alternate_number');
  });

  it('accepts id and phone fields sent as JSON numbers', async () => {
    await service.seedAccount({ id: 'acc-numeric', projects: { '1001': ['2002'] } });
    const key = await service.issueKey('acc-numeric');
    const mobile = uniqueMobile();
    const answer = await service.call('portala', {
      apiKey: key,
      rawBody: `{"name":"N","mobile_number":${mobile},"projectID":1001,"campaignID":2002,"notes":"x"}`,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ mobile_number: mobile, projectID: '1001', campaignID: '2002' });
  });
});
