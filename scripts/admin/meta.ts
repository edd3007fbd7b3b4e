/**
 * Meta Lead Ads (CONTRACT.md section 8): list an account's pages and forms (never a token), connect or
 * disconnect a page, map or unmap a lead form. The page token is read from META_PAGE_ACCESS_TOKEN or
 * standard input, never from the command line (shell history).
 */
import type { StoredMetaPage } from '../../shared/meta/pages.ts';
import { pageTokenCipherFromEnvironment } from '../../shared/meta/token-cipher.ts';
import { cellText, CommandError, existingAccount, HELP, UsageError, type CommandModule, type OptionValues } from './command.ts';
import { metaPagesOf } from '../../shared/meta/page-store.ts';

export const PAGE_TOKEN_VARIABLE = 'META_PAGE_ACCESS_TOKEN';
const META_ID = /^[\w.-]{1,100}$/;

const option = (values: OptionValues, name: string, command: string, pattern?: RegExp): string => {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`, command);
  if (pattern && !pattern.test(value)) throw new UsageError(`--${name} must be a Meta id (digits), not ${JSON.stringify(value)}`, command);
  return value;
};

const meta: CommandModule = {
  'meta-pages': {
    usage: 'meta-pages --account ID [--json]',
    summary: "List an account's connected Facebook pages and their lead form mappings (tokens are never shown).",
    options: { ...HELP, account: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = option(values, 'account', 'meta-pages');
      const repo = repository();
      await existingAccount(repo, accountId);
      const pages = (await metaPagesOf(repo).listPages(accountId)).map(listed);
      io.stdout(values.json ? `${JSON.stringify(pages, null, 2)}\n` : pageTable(pages));
    },
  },
  'add-meta-page': {
    usage: 'add-meta-page --account ID --page PAGE_ID',
    summary: `Connect a Facebook page to an account, or replace its access token; the token is read from ${PAGE_TOKEN_VARIABLE} or standard input, and stored encrypted.`,
    options: { ...HELP, account: { type: 'string' }, page: { type: 'string' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = option(values, 'account', 'add-meta-page');
      const pageId = option(values, 'page', 'add-meta-page', META_ID);
      const token = (io.env[PAGE_TOKEN_VARIABLE] ?? (io.stdin ? await io.stdin() : '')).trim();
      if (!token) throw new UsageError(`the page access token is required: set ${PAGE_TOKEN_VARIABLE}, or pipe it to standard input`, 'add-meta-page');
      const repo = repository();
      await existingAccount(repo, accountId);
      const sealed = await pageTokenCipherFromEnvironment(io.env).seal(pageId, token);
      if ((await metaPagesOf(repo).savePage(accountId, pageId, sealed)) !== 'saved') {
        throw new CommandError(`page ${JSON.stringify(pageId)} is connected to another account: remove it there first`);
      }
      io.stdout(`Page ${pageId} is connected to account ${accountId}; its token is stored encrypted. Map its lead forms with map-meta-form.\n`);
    },
  },
  'remove-meta-page': {
    usage: 'remove-meta-page --account ID --page PAGE_ID',
    summary: 'Disconnect a page: its token and form mappings are deleted; its later leads are logged as from an unknown page.',
    options: { ...HELP, account: { type: 'string' }, page: { type: 'string' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = option(values, 'account', 'remove-meta-page');
      const pageId = option(values, 'page', 'remove-meta-page', META_ID);
      const repo = repository();
      await existingAccount(repo, accountId);
      if (!(await metaPagesOf(repo).removePage(accountId, pageId))) throw new CommandError(`account ${accountId} has no page ${JSON.stringify(pageId)}`);
      io.stdout(`Page ${pageId} is disconnected from account ${accountId}.\n`);
    },
  },
  'map-meta-form': {
    usage: 'map-meta-form --account ID --page PAGE_ID --form FORM_ID --project ID --campaign ID',
    summary: "Send a page's lead form to a project and campaign of the account (replaces an earlier mapping of the form).",
    options: { ...HELP, account: { type: 'string' }, page: { type: 'string' }, form: { type: 'string' }, project: { type: 'string' }, campaign: { type: 'string' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = option(values, 'account', 'map-meta-form');
      const pageId = option(values, 'page', 'map-meta-form', META_ID);
      const formId = option(values, 'form', 'map-meta-form', META_ID);
      const projectID = option(values, 'project', 'map-meta-form');
      const campaignID = option(values, 'campaign', 'map-meta-form');
      const repo = repository();
      const account = await existingAccount(repo, accountId);
      if (!account.projects.has(projectID)) throw new CommandError(`project ${JSON.stringify(projectID)} is not a project of account ${accountId}`);
      if (account.campaigns.get(campaignID)?.projectId !== projectID) throw new CommandError(`campaign ${JSON.stringify(campaignID)} is not a campaign of project ${projectID}`);
      if (!(await metaPagesOf(repo).saveForm(accountId, pageId, formId, { projectID, campaignID }))) {
        throw new CommandError(`account ${accountId} has no page ${JSON.stringify(pageId)}: connect it with add-meta-page first`);
      }
      io.stdout(`Leads of form ${formId} (page ${pageId}) go to project ${projectID}, campaign ${campaignID}.\n`);
    },
  },
  'unmap-meta-form': {
    usage: 'unmap-meta-form --account ID --page PAGE_ID --form FORM_ID',
    summary: "Remove a lead form's mapping: its later leads are recorded as meta_form_not_mapped.",
    options: { ...HELP, account: { type: 'string' }, page: { type: 'string' }, form: { type: 'string' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = option(values, 'account', 'unmap-meta-form');
      const pageId = option(values, 'page', 'unmap-meta-form', META_ID);
      const formId = option(values, 'form', 'unmap-meta-form', META_ID);
      const repo = repository();
      await existingAccount(repo, accountId);
      if (!(await metaPagesOf(repo).removeForm(accountId, pageId, formId))) throw new CommandError(`page ${JSON.stringify(pageId)} of account ${accountId} has no form ${JSON.stringify(formId)}`);
      io.stdout(`Form ${formId} of page ${pageId} is no longer mapped.\n`);
    },
  },
};

export default meta;

interface ListedPage {
  readonly pageId: string;
  readonly token: string;
  readonly tokenUpdatedAt?: string;
  readonly forms: readonly { formId: string; projectID: string; campaignID: string }[];
}

/** A page as listed: the token only as "stored, encrypted". */
const listed = (page: StoredMetaPage): ListedPage => ({
  pageId: page.pageId,
  token: 'stored encrypted',
  ...(page.tokenUpdatedAt && { tokenUpdatedAt: page.tokenUpdatedAt }),
  forms: [...page.forms].map(([formId, { projectID, campaignID }]) => ({ formId, projectID, campaignID })).sort((a, b) => a.formId.localeCompare(b.formId)),
});

const pageTable = (pages: readonly ListedPage[]): string => {
  if (pages.length === 0) return 'No Facebook pages connected.\n';
  const rows = [['page', 'token', 'form', 'project', 'campaign']];
  for (const page of pages) {
    const token = `stored encrypted${page.tokenUpdatedAt ? `, set ${page.tokenUpdatedAt}` : ''}`;
    if (page.forms.length === 0) rows.push([page.pageId, token, '(no form mapped)', '', '']);
    page.forms.forEach((form, i) => rows.push([i === 0 ? page.pageId : '', i === 0 ? token : '', form.formId, form.projectID, form.campaignID]));
  }
  const cells = rows.map((row) => row.map(cellText));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return `${cells.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')}\n${pages.length} page(s)\n`;
};
