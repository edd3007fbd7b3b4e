import { describe, expect, it } from '@jest/globals';
import { applySeed, readSeedFile } from '../../scripts/local/seed.ts';
import { testService, uniqueMobile, validBody } from '../support/service.ts';

/**
 * `seed/production.example.json`, the template docs/deployment.md tells an operator to copy for a
 * stage's empty tables: it must pass the seed loader's checks as shipped, carry no key (production
 * keys are made with `create-key` and shown once), and give accounts that take leads once a key is made.
 */
const EXAMPLE = new URL('../../seed/production.example.json', import.meta.url).pathname;

describe('the example production seed', () => {
  it('passes the seed loader and holds accounts with projects, campaigns and sub sources, and no key', async () => {
    const seed = await readSeedFile(EXAMPLE);
    expect(seed.apiKeys).toEqual([]);
    expect(seed.accounts.map((account) => [account.id, account.duplicateSetting])).toEqual([
      ['acc-skyline-realty', 'merge'],
      ['acc-harbour-homes', 'ignore'],
    ]);
    for (const account of seed.accounts) {
      expect(account.projects.size).toBeGreaterThan(0);
      expect(account.campaigns.size).toBeGreaterThan(0);
      expect(account.websiteSubSources.size).toBeGreaterThan(0);
    }
  });

  it('applied to empty tables, gives an account whose new key stores a lead in its project and campaign', async () => {
    const service = await testService();
    await applySeed(service.repository, await readSeedFile(EXAMPLE));
    const key = await service.issueKey('acc-skyline-realty');
    const project = { projectID: 'PRJ-LAKESIDE', campaignID: 'CMP-MONSOON' };
    const answer = await service.call('website', { apiKey: key, body: validBody('website', project, { sub_source: 'Lakeside microsite', mobile_number: uniqueMobile() }) });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ projectID: 'PRJ-LAKESIDE', campaignID: 'CMP-MONSOON', sub_source: 'Lakeside microsite', is_repeated: false });
    // A campaign of the other project is not this project's.
    const wrong = await service.call('website', { apiKey: key, body: validBody('website', { projectID: 'PRJ-LAKESIDE', campaignID: 'CMP-DIWALI-2026' }, { sub_source: 'Lakeside microsite' }) });
    expect(wrong).toMatchObject({ status: 422, body: { message: 'Campaign not found' } });
  });
});
