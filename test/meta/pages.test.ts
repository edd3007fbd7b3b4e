/**
 * An account's Facebook pages and lead forms (CONTRACT.md section 8): the admin CLI's commands and the
 * seed's `metaPages`, against DynamoDB Local. Tokens are sealed at rest and never listed or echoed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { parseSeed, SeedError } from '../../scripts/local/seed.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { localTokenCipher } from '../../shared/meta/token-cipher.ts';
import { testService, type TestService } from '../support/service.ts';
import { metaPagesOf } from '../../shared/meta/page-store.ts';

let service: TestService;
let env: NodeJS.ProcessEnv;
const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-meta-pages-'));
const TOKEN = 'EAAB-admin-page-token-zz9';

const admin = async (argv: string[], { stdin, extraEnv = {} }: { stdin?: string; extraEnv?: Record<string, string> } = {}) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, {
    env: { ...env, ...extraEnv },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    ...(stdin !== undefined && { stdin: async () => stdin }),
  });
  return { code, stdout, stderr };
};

const configDump = async () =>
  JSON.stringify((await createDocumentClient({ client: service.client }).send(new ScanCommand({ TableName: service.tables.config }))).Items);

const account = (id: string, metaPages?: unknown) => ({
  id,
  name: `Account ${id}`,
  projects: [{ id: 'PRJ-1', campaigns: [{ id: 'CMP-1' }] }, { id: 'PRJ-2', campaigns: [{ id: 'CMP-2' }] }],
  subSources: { social: ['fb', 'ig'] },
  ...(metaPages !== undefined && { metaPages }),
});

beforeAll(async () => {
  service = await testService({ configCacheTtlSeconds: 0 });
  env = { DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT, CONFIG_TABLE_NAME: service.tables.config, LEADS_TABLE_NAME: service.tables.leads };
  await service.seedAccount({ id: 'acc-p', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] }, social: ['fb'] });
  await service.seedAccount({ id: 'acc-q', projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb'] });
});

describe('admin: connecting a page', () => {
  it('connects a page with the token from standard input, sealed, and lists it without the token', async () => {
    const added = await admin(['add-meta-page', '--account', 'acc-p', '--page', '500100'], { stdin: `${TOKEN}\n` });
    expect(added).toMatchObject({ code: 0, stdout: expect.stringContaining('Page 500100 is connected to account acc-p') });
    expect(added.stdout + added.stderr).not.toContain(TOKEN);
    expect(await configDump()).not.toContain(TOKEN);
    const stored = await metaPagesOf(service.repository).findMetaPage('500100');
    expect(await localTokenCipher().open('500100', stored!.sealedToken)).toBe(TOKEN);

    const listed = await admin(['meta-pages', '--account', 'acc-p', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([{ pageId: '500100', token: 'stored encrypted', tokenUpdatedAt: expect.any(String), forms: [] }]);
    expect(listed.stdout).not.toContain(TOKEN);
    const table = await admin(['meta-pages', '--account', 'acc-p']);
    expect(table.stdout).toMatch(/500100\s+stored encrypted, set \S+\s+\(no form mapped\)/);
    expect(table.stdout).not.toContain('EAAB');
  });

  it('takes the token from META_PAGE_ACCESS_TOKEN, and replaces it on the same page', async () => {
    const replaced = await admin(['add-meta-page', '--account', 'acc-p', '--page', '500100'], { extraEnv: { META_PAGE_ACCESS_TOKEN: 'EAAB-rotated' } });
    expect(replaced.code).toBe(0);
    const stored = await metaPagesOf(service.repository).findMetaPage('500100');
    expect(await localTokenCipher().open('500100', stored!.sealedToken)).toBe('EAAB-rotated');
  });

  it("refuses another account's page (exit 1), and changes nothing", async () => {
    const refused = await admin(['add-meta-page', '--account', 'acc-q', '--page', '500100'], { stdin: 'EAAB-thief' });
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('connected to another account') });
    expect((await metaPagesOf(service.repository).findMetaPage('500100'))!.accountId).toBe('acc-p');
    expect(JSON.parse((await admin(['meta-pages', '--account', 'acc-q', '--json'])).stdout)).toEqual([]);
  });

  it.each([
    [['add-meta-page', '--account', 'acc-p'], '--page is required'],
    [['add-meta-page', '--account', 'acc-p', '--page', '12#3'], '--page must be a Meta id'],
    [['add-meta-page', '--account', 'acc-p', '--page', '500200'], 'the page access token is required'],
    [['meta-pages'], '--account is required'],
    [['map-meta-form', '--account', 'acc-p', '--page', '500100', '--form', '600100', '--project', 'PRJ-1'], '--campaign is required'],
    [['remove-meta-page', '--account', 'acc-p', '--page', '500100', 'extra'], 'expected no arguments'],
    [['meta-pages', '--account', 'acc-p', '--token'], "Unknown option '--token'"],
  ])('exits 2 on bad arguments: %j', async (argv, message) => {
    const result = await admin(argv, { stdin: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('exits 1 for an unknown account', async () => {
    expect((await admin(['meta-pages', '--account', 'acc-nobody'])).code).toBe(1);
    expect((await admin(['add-meta-page', '--account', 'acc-nobody', '--page', '1'], { stdin: 'x' })).code).toBe(1);
  });
});

describe('admin: mapping forms', () => {
  it('maps a form to a project and campaign, lists it, and unmaps it', async () => {
    expect((await admin(['map-meta-form', '--account', 'acc-p', '--page', '500100', '--form', '600100', '--project', 'PRJ-2', '--campaign', 'CMP-2'])).code).toBe(0);
    expect(JSON.parse((await admin(['meta-pages', '--account', 'acc-p', '--json'])).stdout)[0].forms).toEqual([{ formId: '600100', projectID: 'PRJ-2', campaignID: 'CMP-2' }]);
    expect((await admin(['meta-pages', '--account', 'acc-p'])).stdout).toMatch(/600100\s+PRJ-2\s+CMP-2/);
    expect((await admin(['unmap-meta-form', '--account', 'acc-p', '--page', '500100', '--form', '600100'])).code).toBe(0);
    expect(JSON.parse((await admin(['meta-pages', '--account', 'acc-p', '--json'])).stdout)[0].forms).toEqual([]);
  });

  it.each([
    [['--project', 'PRJ-9', '--campaign', 'CMP-1'], 'is not a project of account acc-p'],
    [['--project', 'PRJ-1', '--campaign', 'CMP-2'], 'is not a campaign of project PRJ-1'],
  ])('exits 1 for a project or campaign the account does not have: %j', async (ids, message) => {
    const result = await admin(['map-meta-form', '--account', 'acc-p', '--page', '500100', '--form', '600200', ...ids]);
    expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining(message) });
  });

  it("exits 1 mapping a form of a page the account does not have, or unmapping a form it never mapped", async () => {
    expect((await admin(['map-meta-form', '--account', 'acc-q', '--page', '500100', '--form', '600300', '--project', 'PRJ-1', '--campaign', 'CMP-1'])).code).toBe(1);
    expect((await metaPagesOf(service.repository).findMetaPage('500100'))!.forms.has('600300')).toBe(false);
    expect((await admin(['unmap-meta-form', '--account', 'acc-p', '--page', '500100', '--form', '600999'])).code).toBe(1);
  });

  it('disconnects a page with its forms and token', async () => {
    await admin(['map-meta-form', '--account', 'acc-p', '--page', '500100', '--form', '600400', '--project', 'PRJ-1', '--campaign', 'CMP-1']);
    expect((await admin(['remove-meta-page', '--account', 'acc-q', '--page', '500100'])).code).toBe(1);
    expect((await admin(['remove-meta-page', '--account', 'acc-p', '--page', '500100'])).code).toBe(0);
    expect(await metaPagesOf(service.repository).findMetaPage('500100')).toBeUndefined();
    expect(await configDump()).not.toContain('500100');
    expect((await admin(['remove-meta-page', '--account', 'acc-p', '--page', '500100'])).code).toBe(1);
  });
});

describe('admin rejections', () => {
  it('shows the leadgen id of a Meta rejection in its table', async () => {
    await service.repository.rejections.record('acc-p', {
      at: new Date().toISOString(),
      requestId: 'r-1:1200000000000009',
      endpoint: 'meta',
      reason: 'meta_form_not_mapped',
      message: 'Meta lead form is not mapped to a project and campaign',
      fields: { page_id: '500100', form_id: '600900' },
      platformIds: { meta_leadgen_id: '1200000000000009' },
    });
    const table = await admin(['rejections', '--account', 'acc-p']);
    expect(table.stdout).toMatch(/meta leadgen 1200000000000009\s+meta_form_not_mapped/);
    expect(JSON.parse((await admin(['rejections', '--account', 'acc-p', '--json'])).stdout)[0]).toMatchObject({ endpoint: 'meta', meta_leadgen_id: '1200000000000009' });
  });
});

describe('the seed file: metaPages', () => {
  it('connects the pages of a seed, sealed, with their forms', async () => {
    const file = path.join(dir, 'seed.json');
    writeFileSync(
      file,
      JSON.stringify({
        accounts: [account('acc-s', [{ pageId: '700100', accessToken: 'EAAB-seed-token', forms: [{ formId: '800100', projectID: 'PRJ-1', campaignID: 'CMP-1' }] }])],
        apiKeys: [],
      }),
    );
    expect((await admin(['seed', file])).code).toBe(0);
    expect((await admin(['seed', file])).code).toBe(0);
    const page = await metaPagesOf(service.repository).findMetaPage('700100');
    expect(page).toMatchObject({ accountId: 'acc-s', forms: new Map([['800100', { projectID: 'PRJ-1', campaignID: 'CMP-1' }]]) });
    expect(await configDump()).not.toContain('EAAB-seed-token');
  });

  it.each([
    ['a page id that is not an id', [{ pageId: 'a#b', accessToken: 't' }], 'pageId must be a Facebook page id'],
    ['no token', [{ pageId: '1' }], 'accessToken must be a non-empty string'],
    ['a form of a project the account lacks', [{ pageId: '1', accessToken: 't', forms: [{ formId: '2', projectID: 'PRJ-9', campaignID: 'CMP-1' }] }], 'is not a project of the account'],
    ['a campaign of another project', [{ pageId: '1', accessToken: 't', forms: [{ formId: '2', projectID: 'PRJ-1', campaignID: 'CMP-2' }] }], 'is not a campaign of project'],
    ['an unknown field', [{ pageId: '1', accessToken: 't', token: 'x' }], 'unknown field "token"'],
    ['a form mapped twice', [{ pageId: '1', accessToken: 't', forms: [{ formId: '2', projectID: 'PRJ-1', campaignID: 'CMP-1' }, { formId: '2', projectID: 'PRJ-1', campaignID: 'CMP-1' }] }], 'mapped more than once'],
  ])('refuses %s, naming it', (_case, metaPages, message) => {
    expect(() => parseSeed({ accounts: [account('acc-x', metaPages)], apiKeys: [] })).toThrow(message);
  });

  it('refuses one page in two accounts', () => {
    const page = [{ pageId: '42', accessToken: 't' }];
    expect(() => parseSeed({ accounts: [account('acc-1', page), account('acc-2', page)], apiKeys: [] })).toThrow('appears more than once');
  });

  it('never echoes a token in its problems', () => {
    try {
      parseSeed({ accounts: [account('acc-x', [{ pageId: 'bad id', accessToken: 'EAAB-never-echo' }])], apiKeys: [] });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(SeedError);
      expect((error as Error).message).not.toContain('EAAB-never-echo');
    }
  });
});
