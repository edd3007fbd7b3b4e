import { beforeAll, describe, expect, it } from '@jest/globals';
import { testService, uniqueMobile, type TestService } from '../support/service.ts';

let service: TestService;
let apiKey: string;

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-a', projects: { ['P'.repeat(100)]: ['C'.repeat(100)] }, website: ['S'.repeat(200)], social: ['fb'] });
  apiKey = await service.issueKey('acc-a');
});

describe('the largest valid lead', () => {
  it('fits the 64 KiB body cap and stores whole in DynamoDB', async () => {
    const body = {
      name: 'N'.repeat(200),
      mobile_number: uniqueMobile(),
      email: `${'e'.repeat(64)}@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(50)}.com`,
      alternate_number: '0091 (87654) 32109',
      projectID: 'P'.repeat(100),
      campaignID: 'C'.repeat(100),
      sub_source: 'S'.repeat(200),
      profession: 'p'.repeat(200),
      location: 'l'.repeat(200),
      notes: 'ण'.repeat(5000),
      ...Object.fromEntries(['utm_id', 'utm_campaign', 'utm_source', 'utm_medium', 'utm_term', 'gclid', 'fbclid'].map((f) => [f, 'u'.repeat(500)])),
      visitor_ip: 'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255',
    };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(65_536);

    const answer = await service.call('website', { apiKey, body });

    expect(answer.status).toBe(200);
    const [stored] = await service.repository.leadArchive.listLeads('acc-a', ['P'.repeat(100)]);
    expect(stored).toEqual(answer.body.data);
    expect(stored!.notes).toHaveLength(5000);
  });
});
