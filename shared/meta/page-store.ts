/**
 * Facebook pages connected by accounts (CONTRACT.md section 8), in the Config table
 * (docs/data-model.md). The worker finds a page by id in one query; an account lists its pages:
 *   METAPAGE#<page id> / PAGE               account_id, sealed_token (KMS or local AES-GCM), updated_at
 *   METAPAGE#<page id> / FORM#<form id>     project_id, campaign_id
 *   METAPAGES#<account id> / PAGE#<page id>  the account's listing of its pages
 * Kept out of the account's own partition: the lead endpoints read that partition whole, and have no
 * use for pages or sealed tokens.
 */
import { DeleteCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MetaFormMapping, MetaPageReader, StoredMetaPage } from './pages.ts';
import { orUnavailable, queryAll, TableStore } from '../dynamodb/requests.ts';

const pagePk = (pageId: string) => `METAPAGE#${pageId}`;
const listingPk = (accountId: string) => `METAPAGES#${accountId}`;

/** The worker's read of a page: the page and its forms, one query. */
export class DynamoDbMetaPageReader extends TableStore implements MetaPageReader {
  async findMetaPage(pageId: string): Promise<StoredMetaPage | undefined> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pagePk(pageId) },
      ConsistentRead: true,
    });
    const page = items.find((item) => item.sk === 'PAGE');
    if (!page) return undefined;
    const forms = new Map<string, MetaFormMapping>();
    for (const item of items) {
      if (item.sk.startsWith('FORM#')) forms.set(item.sk.slice('FORM#'.length), { projectID: item.project_id, campaignID: item.campaign_id });
    }
    return { pageId, accountId: page.account_id, sealedToken: page.sealed_token, forms, ...(page.updated_at && { tokenUpdatedAt: page.updated_at }) };
  }
}

/** The outcome of connecting a page: refused when another account has it. */
export type SavePageOutcome = 'saved' | 'owned_by_another_account';

/** Pages as the admin CLI and the seed manage them. */
export class DynamoDbMetaPageStore extends DynamoDbMetaPageReader {
  /**
   * Connects a page to an account, or replaces its token (forms are kept). A page belongs to one
   * account: another account's page is refused, nothing written.
   */
  async savePage(accountId: string, pageId: string, sealedToken: string, now = new Date()): Promise<SavePageOutcome> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.table,
                Item: { pk: pagePk(pageId), sk: 'PAGE', account_id: accountId, sealed_token: sealedToken, updated_at: now.toISOString() },
                ConditionExpression: 'attribute_not_exists(pk) OR account_id = :account',
                ExpressionAttributeValues: { ':account': accountId },
              },
            },
            { Put: { TableName: this.table, Item: { pk: listingPk(accountId), sk: `PAGE#${pageId}`, page_id: pageId } } },
          ],
        }),
      );
      return 'saved';
    } catch (error) {
      if ((error as { name?: string }).name === 'TransactionCanceledException') {
        const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
        if (reasons[0]?.Code === 'ConditionalCheckFailed') return 'owned_by_another_account';
      }
      return orUnavailable(() => Promise.reject(error));
    }
  }

  /** Maps a form of the account's page to a project and campaign; false when the page is not the account's. */
  async saveForm(accountId: string, pageId: string, formId: string, mapping: MetaFormMapping): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.table,
                Key: { pk: pagePk(pageId), sk: 'PAGE' },
                ConditionExpression: 'account_id = :account',
                ExpressionAttributeValues: { ':account': accountId },
              },
            },
            { Put: { TableName: this.table, Item: { pk: pagePk(pageId), sk: `FORM#${formId}`, project_id: mapping.projectID, campaign_id: mapping.campaignID } } },
          ],
        }),
      );
      return true;
    } catch (error) {
      if ((error as { name?: string }).name === 'TransactionCanceledException') {
        const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
        if (reasons[0]?.Code === 'ConditionalCheckFailed') return false;
      }
      return orUnavailable(() => Promise.reject(error));
    }
  }

  /** Removes a form's mapping; false when the account's page has no such form. */
  async removeForm(accountId: string, pageId: string, formId: string): Promise<boolean> {
    const page = await this.findMetaPage(pageId);
    if (page?.accountId !== accountId || !page.forms.has(formId)) return false;
    await orUnavailable(() => this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk: pagePk(pageId), sk: `FORM#${formId}` } })));
    return true;
  }

  /** Disconnects a page with its forms and token; false when the account has no such page. */
  async removePage(accountId: string, pageId: string): Promise<boolean> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pagePk(pageId) },
      ConsistentRead: true,
    });
    if (items.find((item) => item.sk === 'PAGE')?.account_id !== accountId) return false;
    // The page item goes last: until then the page is still found, never half there without its token.
    const keys = [...items.filter((item) => item.sk !== 'PAGE'), ...items.filter((item) => item.sk === 'PAGE')].map(({ pk, sk }) => ({ pk, sk }));
    for (const Key of keys) await orUnavailable(() => this.db.send(new DeleteCommand({ TableName: this.table, Key })));
    await orUnavailable(() => this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk: listingPk(accountId), sk: `PAGE#${pageId}` } })));
    return true;
  }

  /** The account's pages with their forms, by page id (sealed tokens included: callers must not show them). */
  async listPages(accountId: string): Promise<StoredMetaPage[]> {
    const listing = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': listingPk(accountId) },
      ConsistentRead: true,
    });
    const pages: StoredMetaPage[] = [];
    for (const item of listing) {
      const page = await this.findMetaPage(item.page_id);
      if (page?.accountId === accountId) pages.push(page);
    }
    return pages.sort((a, b) => a.pageId.localeCompare(b.pageId));
  }
}


/** The pages' store over a repository's client and Config table (the admin CLI, the seed, the bench, the tests). */
export const metaPagesOf = (repository: { readonly db: DynamoDBDocumentClient; readonly tables: { readonly config: string } }): DynamoDbMetaPageStore =>
  new DynamoDbMetaPageStore(repository.db, repository.tables.config);
