/**
 * Account configuration, in the Config table, one partition per account (docs/data-model.md):
 *   ACCOUNT#<id> / ACCOUNT        name, duplicate_setting, website_sub_sources, social_sub_sources
 *   ACCOUNT#<id> / PROJECT#<id>   name
 *   ACCOUNT#<id> / CAMPAIGN#<id>  project_id, name
 */
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountConfig, Campaign, DuplicateSetting, Project } from '../domain/lead.ts';
import type { AccountReader } from '../domain/ports.ts';
import { orUnavailable, queryAll, updateExisting } from './requests.ts';

const accountPk = (accountId: string) => `ACCOUNT#${accountId}`;

/** The request path's read of an account: its whole partition in one query. */
export class DynamoDbAccountReader implements AccountReader {
  protected readonly db: DynamoDBDocumentClient;
  protected readonly table: string;

  constructor(db: DynamoDBDocumentClient, configTable: string) {
    this.db = db;
    this.table = configTable;
  }

  async loadAccount(accountId: string): Promise<AccountConfig | undefined> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': accountPk(accountId) },
      ConsistentRead: true,
    });
    const account = items.find((item) => item.sk === 'ACCOUNT');
    if (!account) return undefined;
    const projects = new Map<string, Project>();
    const campaigns = new Map<string, Campaign>();
    for (const item of items) {
      if (item.sk.startsWith('PROJECT#')) {
        const id = item.sk.slice('PROJECT#'.length);
        projects.set(id, { id, name: item.name });
      } else if (item.sk.startsWith('CAMPAIGN#')) {
        const id = item.sk.slice('CAMPAIGN#'.length);
        campaigns.set(id, { id, projectId: item.project_id, name: item.name });
      }
    }
    return {
      id: accountId,
      name: account.name,
      duplicateSetting: account.duplicate_setting as DuplicateSetting,
      projects,
      campaigns,
      websiteSubSources: new Set(account.website_sub_sources ?? []),
      socialSubSources: new Set(account.social_sub_sources ?? []),
    };
  }
}

/** Accounts as the admin CLI and the seed write them. */
export class DynamoDbAccountStore extends DynamoDbAccountReader {
  /** Writes an account with its projects and campaigns, all or nothing (up to 99 of them at once). */
  async saveAccount(account: AccountConfig): Promise<void> {
    const pk = accountPk(account.id);
    const items: Record<string, unknown>[] = [
      {
        pk,
        sk: 'ACCOUNT',
        name: account.name,
        duplicate_setting: account.duplicateSetting,
        website_sub_sources: [...account.websiteSubSources],
        social_sub_sources: [...account.socialSubSources],
      },
      ...[...account.projects.values()].map((project) => ({ pk, sk: `PROJECT#${project.id}`, name: project.name })),
      ...[...account.campaigns.values()].map((campaign) => ({ pk, sk: `CAMPAIGN#${campaign.id}`, project_id: campaign.projectId, name: campaign.name })),
    ];
    for (let start = 0; start < items.length; start += 100) {
      await orUnavailable(() =>
        this.db.send(new TransactWriteCommand({ TransactItems: items.slice(start, start + 100).map((Item) => ({ Put: { TableName: this.table, Item } })) })),
      );
    }
  }

  /** Changes an account's duplicate setting; false when the account does not exist. */
  async setDuplicateSetting(accountId: string, setting: DuplicateSetting): Promise<boolean> {
    return updateExisting(this.db, {
      TableName: this.table,
      Key: { pk: accountPk(accountId), sk: 'ACCOUNT' },
      UpdateExpression: 'SET duplicate_setting = :setting',
      ExpressionAttributeValues: { ':setting': setting },
    });
  }
}
