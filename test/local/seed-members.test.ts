/**
 * A seed account's members of the lead sources (their descriptors' `seed`): each read by its source's
 * module, named in errors as before; a member no source declares is an unknown field.
 */
import { describe, expect, it } from '@jest/globals';
import { parseSeed } from '../../scripts/local/seed.ts';
import { seedMembers } from '../../shared/sources/registry.ts';

const seedSources = seedMembers.map(({ source, member }) => [source.name, member] as const);
const account = (members: Record<string, unknown>) => ({ id: 'acc-1', name: 'Acme', projects: [{ id: 'PRJ-1', campaigns: [{ id: 'CMP-1' }] }], ...members });

describe('the sources’ seed members', () => {
  it('are one member per source that declares one, each its own name, none an account field of the core seed', () => {
    expect(seedSources.length).toBeGreaterThan(0);
    const members = seedSources.map(([, member]) => member);
    expect(new Set(members).size).toBe(members.length);
    expect(members.filter((member) => member in account({}))).toEqual([]);
  });

  it.each(seedSources)('%s: its module reads %s, refusing one that is not an array under the account’s name', (_source, member) => {
    expect(() => parseSeed({ accounts: [account({ [member]: 'none' })], apiKeys: [] })).toThrow(`seed is invalid: account "acc-1".${member} must be an array`);
  });

  it.each(seedSources)('%s: %s with no entries is left out of the seed', (_source, member) => {
    expect(Object.keys(parseSeed({ accounts: [account({ [member]: [] })], apiKeys: [] }))).toEqual(['accounts', 'apiKeys']);
  });

  it('refuses a member no source declares, as an unknown field of the account', () => {
    expect(() => parseSeed({ accounts: [account({ telegramChats: [] })], apiKeys: [] })).toThrow('seed is invalid: account "acc-1": unknown field "telegramChats"');
  });

  it('gives each member’s entries across the accounts, each source reading its own', () => {
    const seed = parseSeed({
      accounts: [
        account({ googleForms: [{ formId: '40000000007', key: 'form-key', projectID: 'PRJ-1', campaignID: 'CMP-1' }], callNumbers: [{ number: '+91 80 4718 1234', projectID: 'PRJ-1', campaignID: 'CMP-1' }] }),
        { ...account({ callNumbers: [{ number: '08047181234', projectID: 'PRJ-1', campaignID: 'CMP-1' }] }), id: 'acc-2' },
      ],
      apiKeys: [],
    });
    expect(seed.googleForms).toEqual([{ accountId: 'acc-1', formId: '40000000007', key: 'form-key', projectId: 'PRJ-1', campaignId: 'CMP-1' }]);
    expect(seed.callNumbers).toEqual([
      { accountId: 'acc-1', number: '8047181234', projectId: 'PRJ-1', campaignId: 'CMP-1' },
      { accountId: 'acc-2', number: '8047181234', projectId: 'PRJ-1', campaignId: 'CMP-1' },
    ]);
    expect(seed.metaPages).toBeUndefined();
  });
});
