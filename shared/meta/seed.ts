/**
 * The `metaPages` of a seed account (CONTRACT.md section 8):
 *   "metaPages": [{"pageId": "...", "accessToken": "...", "forms": [{"formId": "...", "projectID": "...", "campaignID": "..."}]}]
 * Tokens are plain text in a local seed file only; they are sealed before they are stored, and never
 * echoed in an error.
 */
import type { PageTokenCipher } from './pages.ts';
import type { DynamoDbRepository } from '../dynamodb/repository.ts';
import { pageTokenCipherFromEnvironment } from './token-cipher.ts';
import { formTargetProblem, type SeedAccountContext, type SeedMember } from '../sources/seed-member.ts';
import { metaPagesOf } from './page-store.ts';

export interface SeedMetaPage {
  readonly accountId: string;
  readonly pageId: string;
  readonly accessToken: string;
  readonly forms: readonly { readonly formId: string; readonly projectID: string; readonly campaignID: string }[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);
/** Meta's ids: digits in practice; any short id without `#` (the stores' key separator) is taken. */
const META_ID = /^[\w.-]{1,100}$/;

export interface MetaSeedContext extends SeedAccountContext {
  /** Page ids already taken by an account earlier in the file. */
  readonly seenPages: Map<string, string>;
}

export const parseMetaPages = (raw: unknown, { accountId, at, projects, campaigns, problem, seenPages }: MetaSeedContext): SeedMetaPage[] => {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problem(`${at}.metaPages must be an array`);
    return [];
  }
  const pages: SeedMetaPage[] = [];
  raw.forEach((rawPage, i) => {
    let pageAt = `${at}.metaPages[${i}]`;
    if (!isObject(rawPage)) return problem(`${pageAt} must be an object`);
    for (const key of Object.keys(rawPage)) if (!['pageId', 'accessToken', 'forms'].includes(key)) problem(`${pageAt}: unknown field ${show(key)}`);
    const pageId = typeof rawPage.pageId === 'string' && META_ID.test(rawPage.pageId) ? rawPage.pageId : undefined;
    if (pageId === undefined) problem(`${pageAt}.pageId must be a Facebook page id (digits, as a string)`);
    else {
      pageAt = `${at}, Meta page ${show(pageId)}`;
      const owner = seenPages.get(pageId);
      if (owner !== undefined) problem(`Meta page ${show(pageId)} appears more than once (a page belongs to one account)`);
      seenPages.set(pageId, accountId ?? '');
    }
    const token = typeof rawPage.accessToken === 'string' && rawPage.accessToken.trim() !== '' && rawPage.accessToken === rawPage.accessToken.trim() ? rawPage.accessToken : undefined;
    if (token === undefined) problem(`${pageAt}.accessToken must be a non-empty string without surrounding spaces`);
    const forms: SeedMetaPage['forms'][number][] = [];
    const formIds = new Set<string>();
    const rawForms = rawPage.forms ?? [];
    if (!Array.isArray(rawForms)) problem(`${pageAt}.forms must be an array`);
    else
      rawForms.forEach((rawForm, j) => {
        const formAt = `${pageAt}.forms[${j}]`;
        if (!isObject(rawForm)) return problem(`${formAt} must be an object`);
        for (const key of Object.keys(rawForm)) if (!['formId', 'projectID', 'campaignID'].includes(key)) problem(`${formAt}: unknown field ${show(key)}`);
        const { formId, projectID, campaignID } = rawForm;
        if (typeof formId !== 'string' || !META_ID.test(formId)) return problem(`${formAt}.formId must be a lead form id (digits, as a string)`);
        if (formIds.has(formId)) problem(`${pageAt}: form ${show(formId)} is mapped more than once`);
        formIds.add(formId);
        const target = formTargetProblem(formAt, projectID, campaignID, projects, campaigns);
        if (target) return problem(target);
        forms.push({ formId, projectID: projectID as string, campaignID: campaignID as string });
      });
    if (accountId !== undefined && pageId !== undefined && token !== undefined) pages.push({ accountId, pageId, accessToken: token, forms });
  });
  return pages;
};

/** Connects each page (its token sealed) and maps its forms. */
export const applyMetaPages = async (repository: DynamoDbRepository, pages: readonly SeedMetaPage[], cipher: PageTokenCipher): Promise<void> => {
  for (const page of pages) {
    const outcome = await metaPagesOf(repository).savePage(page.accountId, page.pageId, await cipher.seal(page.pageId, page.accessToken));
    if (outcome !== 'saved') throw new Error(`Meta page ${JSON.stringify(page.pageId)} is connected to another account already`);
    for (const { formId, projectID, campaignID } of page.forms) {
      await metaPagesOf(repository).saveForm(page.accountId, page.pageId, formId, { projectID, campaignID });
    }
  }
};

/** The seed's `metaPages` (shared/meta/source.ts `seed`): a page belongs to one account of the file. */
const metaPagesMember: SeedMember<SeedMetaPage> = {
  reader: () => {
    const seenPages = new Map<string, string>();
    return (raw, context) => parseMetaPages(raw, { ...context, seenPages });
  },
  apply: (repository, pages) => applyMetaPages(repository, pages, pageTokenCipherFromEnvironment()),
};
export default metaPagesMember;
