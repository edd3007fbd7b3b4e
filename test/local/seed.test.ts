import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { demoKeyOf, parseSeed, SeedError } from '../../scripts/local/seed.ts';
import { apiKeySources, seedMembers } from '../../shared/sources/registry.ts';

/** The four lead endpoints, whose curl lines the banner prints. */
const FOUR = apiKeySources.map((source) => source.name);

const demoFile = JSON.parse(readFileSync(new URL('../../seed/demo.json', import.meta.url), 'utf8'));

/**
 * A valid seed, changed by `edit` (a deep copy each time): the demo seed without its sources' members
 * (Meta's page, Google's form, the call and WhatsApp numbers), which name the demo's project and would
 * add their own problems to an edit of the project (their own refusals are tested below, on `seedWithGoogleForm`).
 */
const seedWith = (edit: (seed: any) => void = () => undefined) => {
  const seed = structuredClone(demoFile);
  for (const { member } of seedMembers) delete seed.accounts[0][member];
  edit(seed);
  return seed;
};

/** The demo seed whole, with its Google Ads form, changed by `edit`. */
const seedWithGoogleForm = (edit: (seed: any) => void) => {
  const seed = structuredClone(demoFile);
  edit(seed);
  return seed;
};

const problemsOf = (input: unknown): readonly string[] => {
  try {
    parseSeed(input);
  } catch (error) {
    if (error instanceof SeedError) return error.problems;
    throw error;
  }
  throw new Error('the seed was accepted');
};

describe('reading a seed file', () => {
  it('reads the demo seed, the reference example with a browser key for examples/landing-page, a Meta page and a Google form, into an account with its configuration', () => {
    expect(demoFile).toEqual({
      accounts: [
        {
          id: 'acc-demo',
          name: 'Demo Realty',
          duplicateHandling: 'ignore',
          projects: [{ id: 'PRJ-1', name: 'Skyline Towers', campaigns: [{ id: 'CMP-1', name: 'Diwali launch' }] }],
          subSources: { website: ['Skyline landing page'], social: ['fb', 'ig', 'wp'] },
          metaPages: [{ pageId: '108000000000001', accessToken: 'demo-page-token-please-change', forms: [{ formId: '2200000000000001', projectID: 'PRJ-1', campaignID: 'CMP-1' }] }],
          googleForms: [{ formId: '40000000000', key: 'demo-google-key-please-change', projectID: 'PRJ-1', campaignID: 'CMP-1' }],
          callNumbers: [{ number: '+91 80 4718 1234', projectID: 'PRJ-1', campaignID: 'CMP-1' }],
          whatsappNumbers: [{ phoneNumberId: '106540352242922', projectID: 'PRJ-1', campaignID: 'CMP-1' }],
        },
      ],
      apiKeys: [
        { key: 'demo-key-please-change', accountId: 'acc-demo', active: true },
        {
          key: 'demo-browser-key-please-change',
          accountId: 'acc-demo',
          keyId: 'key_demolandingpage',
          label: 'examples/landing-page',
          origins: ['http://127.0.0.1:8080', 'http://localhost:8080'],
        },
        { key: 'demo-calls-key-please-change', accountId: 'acc-demo', keyId: 'key_democalls', label: 'telephony providers', endpoints: ['calls'] },
      ],
    });
    const seed = parseSeed(demoFile);
    expect(seed.googleForms).toEqual([{ accountId: 'acc-demo', formId: '40000000000', key: 'demo-google-key-please-change', projectId: 'PRJ-1', campaignId: 'CMP-1' }]);
    expect(seed.callNumbers).toEqual([{ accountId: 'acc-demo', number: '8047181234', projectId: 'PRJ-1', campaignId: 'CMP-1' }]);
    const [account] = seed.accounts;
    expect(account).toMatchObject({ id: 'acc-demo', name: 'Demo Realty', duplicateSetting: 'ignore' });
    expect([...account!.projects.values()]).toEqual([{ id: 'PRJ-1', name: 'Skyline Towers' }]);
    expect([...account!.campaigns.values()]).toEqual([{ id: 'CMP-1', projectId: 'PRJ-1', name: 'Diwali launch' }]);
    expect([...account!.websiteSubSources]).toEqual(['Skyline landing page']);
    expect([...account!.socialSubSources]).toEqual(['fb', 'ig', 'wp']);
    expect(seed.apiKeys).toEqual([
      {
        key: 'demo-key-please-change',
        accountId: 'acc-demo',
        active: true,
        keyId: expect.stringMatching(/^key_[a-z0-9]+$/),
        options: { label: null, endpoints: null, origins: null, expiresAt: null },
      },
      {
        key: 'demo-browser-key-please-change',
        accountId: 'acc-demo',
        active: true,
        keyId: 'key_demolandingpage',
        options: { label: 'examples/landing-page', endpoints: ['website'], origins: ['http://127.0.0.1:8080', 'http://localhost:8080'], expiresAt: null },
      },
      {
        key: 'demo-calls-key-please-change',
        accountId: 'acc-demo',
        active: true,
        keyId: 'key_democalls',
        options: { label: 'telephony providers', endpoints: ['calls'], origins: null, expiresAt: null },
      },
    ]);
  });

  it('defaults duplicate handling to ignore, names to ids, sub sources to none and keys to active', () => {
    const seed = parseSeed({
      accounts: [{ id: 'a1', name: 'A', projects: [{ id: 'P', campaigns: [{ id: 'C' }] }] }],
      apiKeys: [{ key: 'k', accountId: 'a1' }],
    });
    expect(seed.accounts[0]).toMatchObject({ duplicateSetting: 'ignore', websiteSubSources: new Set(), socialSubSources: new Set() });
    expect(seed.accounts[0]!.campaigns.get('C')).toEqual({ id: 'C', projectId: 'P', name: 'C' });
    expect(seed.apiKeys[0]!.active).toBe(true);
  });

  it('accepts a key whose account the seed does not define (that key answers Client not found)', () => {
    const seed = parseSeed(seedWith((s) => s.apiKeys.push({ key: 'orphan', accountId: 'acc-gone', active: true })));
    expect(seed.apiKeys.map((k) => k.accountId)).toEqual(['acc-demo', 'acc-demo', 'acc-demo', 'acc-gone']);
  });

  it('shows as demo key the first active key of an account the seed defines', () => {
    const seed = parseSeed(
      seedWith((s) => {
        s.apiKeys.unshift({ key: 'inactive', accountId: 'acc-demo', active: false }, { key: 'orphan', accountId: 'acc-gone' });
      }),
    );
    expect(demoKeyOf(seed, FOUR)).toMatchObject({ key: 'demo-key-please-change', account: { id: 'acc-demo' } });
    expect(demoKeyOf(parseSeed({ accounts: [], apiKeys: [{ key: 'orphan', accountId: 'x' }] }), FOUR)).toBeUndefined();
  });

  it('never shows as demo key one its curl lines would be refused with: scoped to calls or to some endpoints, a browser key, expired', () => {
    const seed = parseSeed(
      seedWith((s) => {
        s.apiKeys.unshift(
          { key: 'calls-only', accountId: 'acc-demo', endpoints: ['calls'] },
          { key: 'portals-only', accountId: 'acc-demo', endpoints: ['portala', 'portalb'] },
          { key: 'browser', accountId: 'acc-demo', endpoints: ['website'], origins: ['https://skyline.example'] },
          { key: 'expired', accountId: 'acc-demo', expiresAt: '2026-01-01T00:00:00Z' },
          { key: 'all-four', accountId: 'acc-demo', endpoints: ['social', 'website', 'portalb', 'portala'] },
        );
      }),
    );
    expect(demoKeyOf(seed, FOUR, new Date('2026-06-01T00:00:00Z'))).toMatchObject({ key: 'all-four' });
    const callsOnly = parseSeed(seedWith((s) => s.apiKeys.splice(0, s.apiKeys.length, { key: 'calls-only', accountId: 'acc-demo', endpoints: ['calls'] })));
    expect(demoKeyOf(callsOnly, FOUR)).toBeUndefined();
  });
});

describe('refusing a seed that breaks the format, naming the problem', () => {
  it.each([
    ['an account id that appears twice', (s: any) => s.accounts.push({ ...s.accounts[0] }), 'account id "acc-demo" appears more than once'],
    ['a project id that appears twice in an account', (s: any) => s.accounts[0].projects.push({ id: 'PRJ-1', campaigns: [] }), 'project id "PRJ-1" appears more than once'],
    [
      'a campaign in two projects',
      (s: any) => s.accounts[0].projects.push({ id: 'PRJ-2', campaigns: [{ id: 'CMP-1' }] }),
      'campaign "CMP-1" is in two projects, "PRJ-1" and "PRJ-2"',
    ],
    ['a campaign twice in one project', (s: any) => s.accounts[0].projects[0].campaigns.push({ id: 'CMP-1' }), 'campaign "CMP-1" appears twice in project "PRJ-1"'],
    ['an unknown duplicate setting', (s: any) => (s.accounts[0].duplicateHandling = 'Merge'), 'duplicateHandling must be one of ignore, create, merge, not "Merge"'],
    ['a social sub source outside fb, ig, wp', (s: any) => s.accounts[0].subSources.social.push('tiktok'), 'subSources.social[3] "tiktok" is not one of fb, ig, wp'],
    ['an account id containing #', (s: any) => (s.accounts[0].id = 'acc#1'), 'accounts[0].id "acc#1" must not contain "#"'],
    ['an account without a name', (s: any) => delete s.accounts[0].name, 'account "acc-demo".name must be a non-empty string'],
    ['an id with surrounding spaces', (s: any) => (s.accounts[0].projects[0].id = ' PRJ-1'), 'has leading or trailing spaces'],
    ['a misspelt field', (s: any) => (s.accounts[0].duplicatehandling = 'merge'), 'account "acc-demo": unknown field "duplicatehandling"'],
    ['the same key twice', (s: any) => s.apiKeys.push({ ...s.apiKeys[0] }), 'apiKeys[3].key is the same key as an earlier entry'],
    ['a key that is not active true or false', (s: any) => (s.apiKeys[0].active = 'yes'), 'apiKeys[0].active must be true or false'],
    ['projects that are not a list', (s: any) => (s.accounts[0].projects = {}), 'account "acc-demo".projects must be an array'],
  ])('refuses %s', (_what, edit, message) => {
    expect(problemsOf(seedWith(edit))).toEqual([expect.stringContaining(message)]);
  });

  it.each([
    ['a Google form id that is not digits', (s: any) => (s.accounts[0].googleForms[0].formId = 'form-1'), 'googleForms[0].formId must be a Google Ads form id (digits, as a string)'],
    ['a Google form id sent as a number', (s: any) => (s.accounts[0].googleForms[0].formId = 40000000000), 'googleForms[0].formId must be a Google Ads form id'],
    ['a Google form twice', (s: any) => s.accounts[0].googleForms.push({ ...s.accounts[0].googleForms[0] }), 'Google form "40000000000" appears more than once'],
    ['a Google form without a key', (s: any) => delete s.accounts[0].googleForms[0].key, 'googleForms[0].key must be a non-empty string'],
    ['a Google form of an unknown campaign', (s: any) => (s.accounts[0].googleForms[0].campaignID = 'CMP-9'), 'googleForms[0].campaignID "CMP-9" is not a campaign of project "PRJ-1"'],
    ['a misspelt Google form field', (s: any) => (s.accounts[0].googleForms[0].projectId = 'PRJ-1'), 'googleForms[0]: unknown field "projectId"'],
  ])('refuses %s, without echoing its key', (_what, edit, message) => {
    const problems = problemsOf(seedWithGoogleForm(edit));
    expect(problems).toEqual([expect.stringContaining(message)]);
    expect(problems.join('\n')).not.toContain('demo-google-key-please-change');
  });

  it.each([
    ['a call number of fewer than 10 digits', (s: any) => (s.accounts[0].callNumbers[0].number = '4718 1234'), 'callNumbers[0].number must be a phone number of at least 10 digits'],
    ['a call number sent as a number', (s: any) => (s.accounts[0].callNumbers[0].number = 8047181234), 'callNumbers[0].number must be a phone number'],
    ['a call number twice, in two spellings', (s: any) => s.accounts[0].callNumbers.push({ ...s.accounts[0].callNumbers[0], number: '080-4718-1234' }), 'call number 8047181234 appears more than once'],
    ['a call number of an unknown project', (s: any) => (s.accounts[0].callNumbers[0].projectID = 'PRJ-9'), 'callNumbers[0].projectID "PRJ-9" is not a project of the account'],
    ['a misspelt call number field', (s: any) => (s.accounts[0].callNumbers[0].projectId = 'PRJ-1'), 'callNumbers[0]: unknown field "projectId"'],
  ])('refuses %s', (_what, edit, message) => {
    expect(problemsOf(seedWithGoogleForm(edit))).toEqual([expect.stringContaining(message)]);
  });

  it('lists every problem of the file at once', () => {
    const problems = problemsOf(
      seedWith((s) => {
        s.accounts[0].duplicateHandling = 'never';
        s.accounts[0].subSources.social = ['FB'];
        s.apiKeys[0].accountId = '';
      }),
    );
    expect(problems).toHaveLength(3);
  });

  it('refuses a file that is not an object', () => {
    expect(problemsOf([])).toEqual([expect.stringContaining('JSON object')]);
  });

  it('never repeats a key in its error', () => {
    const error = (() => {
      try {
        parseSeed(seedWith((s) => s.apiKeys.push({ key: 'demo-key-please-change ', accountId: 'acc-demo' }, { key: 'demo-key-please-change', accountId: 'acc-demo' })));
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('the seed was accepted');
    })();
    expect(error.message).toContain('apiKeys[4].key is the same key');
    expect(error.message).not.toContain('demo-key-please-change');
  });
});
