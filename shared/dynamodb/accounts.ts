/**
 * Account configuration, in the Config table, one partition per account (docs/data-model.md):
 *   ACCOUNT#<id> / ACCOUNT        name, duplicate_setting, website_sub_sources, social_sub_sources, silence_quiet_hours (its own only),
 *                                 lead_retention_days (absent: kept until erased), rejection_retention_days (absent: 30)
 *   ACCOUNT#<id> / PROJECT#<id>   name, version, retired (only once retired)
 *   ACCOUNT#<id> / CAMPAIGN#<id>  project_id, name, retired (only once retired)
 *   RETENTION#ACCOUNTS / ACCOUNT#<id>  an account whose retention was ever set short of the defaults: the sweep's list of accounts
 * A retired project or campaign is kept (its leads are kept too) and left out of what the lead path
 * reads. A project's `version` changes with each write under it, so retiring it with its campaigns
 * can be made conditional on no campaign having been added since they were read.
 */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_REJECTION_RETENTION_DAYS, type RetentionChange } from '../domain/retention.ts';
import type { RetentionAccounts } from '../domain/ports/retention.ts';
import type { AccountConfig, AccountSettings, Campaign, DuplicateSetting, Project } from '../domain/lead.ts';
import type { AccountConfigStore, AccountReader } from '../domain/ports/keys-and-accounts.ts';
import { orUnavailable, queryAll, TableStore, updateExisting, type CancellationReason } from './requests.ts';
import { contendedWrite } from './contended-write.ts';

const accountPk = (accountId: string) => `ACCOUNT#${accountId}`;
const ACCOUNT = 'ACCOUNT';
const PROJECT = 'PROJECT#';
const CAMPAIGN = 'CAMPAIGN#';

/** The request path's read of an account: its whole partition in one query. */
export class DynamoDbAccountReader extends TableStore implements AccountReader {
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
    // Campaigns sort before projects (CAMPAIGN# < PROJECT#): projects first, then their campaigns.
    for (const item of items) {
      if (item.sk.startsWith(PROJECT) && item.retired !== true) {
        const id = item.sk.slice(PROJECT.length);
        projects.set(id, { id, name: item.name });
      }
    }
    for (const item of items) {
      if (item.sk.startsWith(CAMPAIGN) && item.retired !== true && projects.has(item.project_id)) {
        const id = item.sk.slice(CAMPAIGN.length);
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
      ...(account.silence_quiet_hours !== undefined && { silenceQuietHours: String(account.silence_quiet_hours) }),
      retention: {
        leadDays: typeof account.lead_retention_days === 'number' ? account.lead_retention_days : null,
        ...(typeof account.rejection_retention_days === 'number' && { rejectionDays: account.rejection_retention_days }),
      },
    };
  }
}

/** Account configuration writes: the admin API, the admin CLI and the seed, through shared/domain/account-admin.ts. */
export class DynamoDbAccountStore extends DynamoDbAccountReader implements AccountConfigStore, RetentionAccounts {
  /**
   * One update of the account item: the settings given replace the stored ones, quiet hours left out
   * are removed (the stack's apply), and a retention member left out keeps its stored value.
   */
  async putAccountSettings(accountId: string, settings: AccountSettings): Promise<void> {
    const names: Record<string, string> = { '#name': 'name' };
    const values: Record<string, unknown> = {
      ':name': settings.name,
      ':duplicates': settings.duplicateSetting,
      ':website': [...settings.websiteSubSources],
      ':social': [...settings.socialSubSources],
    };
    const set = ['#name = :name', 'duplicate_setting = :duplicates', 'website_sub_sources = :website', 'social_sub_sources = :social'];
    const remove: string[] = [];
    if (settings.silenceQuietHours !== undefined) {
      set.push('silence_quiet_hours = :quiet');
      values[':quiet'] = settings.silenceQuietHours;
    } else {
      remove.push('silence_quiet_hours');
    }
    retentionUpdate(settings.retention ?? {}, set, remove, values);
    const update = {
      TableName: this.table,
      Key: { pk: accountPk(accountId), sk: ACCOUNT },
      UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    };
    if (!sweeps(settings.retention)) {
      await orUnavailable(() => this.db.send(new UpdateCommand(update)));
      return;
    }
    await this.#transact([{ Update: update }, this.#retentionListing(accountId)]);
  }

  /** Changes the retention members given; false when the account does not exist. */
  async setRetention(accountId: string, change: RetentionChange): Promise<boolean> {
    const set: string[] = [];
    const remove: string[] = [];
    const values: Record<string, unknown> = {};
    retentionUpdate(change, set, remove, values);
    if (set.length === 0 && remove.length === 0) return (await this.loadAccount(accountId)) !== undefined;
    const update = {
      TableName: this.table,
      Key: { pk: accountPk(accountId), sk: ACCOUNT },
      UpdateExpression: [set.length > 0 ? `SET ${set.join(', ')}` : '', remove.length > 0 ? `REMOVE ${remove.join(', ')}` : ''].filter(Boolean).join(' '),
      ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: values }),
    };
    if (!sweeps(change)) return updateExisting(this.db, update);
    const reasons = await this.#transact([{ Update: { ...update, ConditionExpression: 'attribute_exists(pk)' } }, this.#retentionListing(accountId)]);
    return !failed(reasons, 0);
  }

  /**
   * The accounts the retention sweep visits. Listed in the same write as the setting that makes the
   * sweep matter to them, and never unlisted (a listing outliving its setting costs the sweep one read
   * of the account, which then has nothing to sweep): one partition, read whole.
   */
  async accountsWithRetention(): Promise<string[]> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': RETENTION_LISTING },
      ProjectionExpression: 'sk',
      ConsistentRead: true,
    });
    return items.map((item) => String(item.sk).slice(ACCOUNT_PREFIX.length));
  }

  #retentionListing(accountId: string) {
    return { Put: { TableName: this.table, Item: { pk: RETENTION_LISTING, sk: `${ACCOUNT_PREFIX}${accountId}`, item_type: 'retention_listing' } } };
  }

  /** Changes an account's duplicate setting; false when the account does not exist. */
  async setDuplicateSetting(accountId: string, setting: DuplicateSetting): Promise<boolean> {
    return updateExisting(this.db, {
      TableName: this.table,
      Key: { pk: accountPk(accountId), sk: ACCOUNT },
      UpdateExpression: 'SET duplicate_setting = :setting',
      ExpressionAttributeValues: { ':setting': setting },
    });
  }

  async putProject(accountId: string, project: Project): Promise<'stored' | 'account_not_found'> {
    const pk = accountPk(accountId);
    const reasons = await this.#transact([
      this.#accountExists(pk),
      {
        Update: {
          TableName: this.table,
          Key: { pk, sk: `${PROJECT}${project.id}` },
          UpdateExpression: 'SET #name = :name, version = if_not_exists(version, :zero) + :one REMOVE retired',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':name': project.name, ':zero': 0, ':one': 1 },
        },
      },
    ]);
    return failed(reasons, 0) ? 'account_not_found' : 'stored';
  }

  async retireProject(accountId: string, projectId: string): Promise<'retired' | 'account_not_found' | 'project_not_found'> {
    const pk = accountPk(accountId);
    const sk = `${PROJECT}${projectId}`;
    // A campaign put under the project between the read and the write changes its version: read again.
    for (let attempt = 1; ; attempt += 1) {
      const items = await queryAll(this.db, { TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true });
      if (!items.some((item) => item.sk === ACCOUNT)) return 'account_not_found';
      const project = items.find((item) => item.sk === sk);
      if (!project) return 'project_not_found';
      if (project.retired === true) return 'retired';
      const campaigns = items.filter((item) => item.sk.startsWith(CAMPAIGN) && item.project_id === projectId && item.retired !== true);
      const retireCampaigns = campaigns.map((campaign) => ({
        Update: {
          TableName: this.table,
          Key: { pk, sk: campaign.sk },
          UpdateExpression: 'SET retired = :true',
          ConditionExpression: 'project_id = :project',
          ExpressionAttributeValues: { ':true': true, ':project': projectId },
        },
      }));
      const retireProject = {
        Update: {
          TableName: this.table,
          Key: { pk, sk },
          UpdateExpression: 'SET retired = :true, version = if_not_exists(version, :zero) + :one',
          ConditionExpression: project.version === undefined ? 'attribute_not_exists(version)' : 'version = :version',
          ExpressionAttributeValues: { ':true': true, ':zero': 0, ':one': 1, ...(project.version !== undefined && { ':version': project.version }) },
        },
      };
      // One transaction holds 100 writes: past 99 campaigns, the extra ones are retired first (a retry
      // of the DELETE finishes the job should the last write fail), and the project with the rest.
      const last = retireCampaigns.splice(0, MAX_TRANSACTION_ITEMS - 1);
      for (let start = 0; start < retireCampaigns.length; start += MAX_TRANSACTION_ITEMS) {
        await this.#transact(retireCampaigns.slice(start, start + MAX_TRANSACTION_ITEMS));
      }
      const reasons = await this.#transact([retireProject, ...last]);
      if (!reasons) return 'retired';
      if (attempt >= 5) throw new Error(`project ${projectId} kept changing while it was being retired`);
    }
  }

  async putCampaign(accountId: string, campaign: Campaign): Promise<'stored' | 'account_not_found' | 'project_not_found' | 'campaign_of_another_project'> {
    const pk = accountPk(accountId);
    const reasons = await this.#transact([
      this.#accountExists(pk),
      {
        // Bumping the project's version makes a concurrent retire of the project read its campaigns again.
        Update: {
          TableName: this.table,
          Key: { pk, sk: `${PROJECT}${campaign.projectId}` },
          UpdateExpression: 'SET version = if_not_exists(version, :zero) + :one',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(retired)',
          ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
        },
      },
      {
        Put: {
          TableName: this.table,
          Item: { pk, sk: `${CAMPAIGN}${campaign.id}`, project_id: campaign.projectId, name: campaign.name },
          // A campaign id belongs to one active campaign: it may move only once retired.
          ConditionExpression: 'attribute_not_exists(pk) OR project_id = :project OR retired = :true',
          ExpressionAttributeValues: { ':project': campaign.projectId, ':true': true },
        },
      },
    ]);
    if (failed(reasons, 0)) return 'account_not_found';
    if (failed(reasons, 1)) return 'project_not_found';
    if (failed(reasons, 2)) return 'campaign_of_another_project';
    return 'stored';
  }

  async retireCampaign(accountId: string, projectId: string, campaignId: string): Promise<'retired' | 'account_not_found' | 'project_not_found' | 'campaign_not_found'> {
    const pk = accountPk(accountId);
    const reasons = await this.#transact([
      this.#accountExists(pk),
      { ConditionCheck: { TableName: this.table, Key: { pk, sk: `${PROJECT}${projectId}` }, ConditionExpression: 'attribute_exists(pk)' } },
      {
        Update: {
          TableName: this.table,
          Key: { pk, sk: `${CAMPAIGN}${campaignId}` },
          UpdateExpression: 'SET retired = :true',
          ConditionExpression: 'attribute_exists(pk) AND project_id = :project',
          ExpressionAttributeValues: { ':true': true, ':project': projectId },
        },
      },
    ]);
    if (failed(reasons, 0)) return 'account_not_found';
    if (failed(reasons, 1)) return 'project_not_found';
    if (failed(reasons, 2)) return 'campaign_not_found';
    return 'retired';
  }

  /** Every project id of an account, retired ones too (their leads are kept): for listing leads. */
  async allProjectIds(accountId: string): Promise<string[]> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :project)',
      ExpressionAttributeValues: { ':pk': accountPk(accountId), ':project': PROJECT },
      ConsistentRead: true,
    });
    return items.map((item) => item.sk.slice(PROJECT.length));
  }

  #accountExists(pk: string) {
    return { ConditionCheck: { TableName: this.table, Key: { pk, sk: ACCOUNT }, ConditionExpression: 'attribute_exists(pk)' } };
  }

  /** Runs a transaction; the reasons it was cancelled for a failed condition, or undefined when it was applied. */
  async #transact(items: Record<string, unknown>[]): Promise<readonly CancellationReason[] | undefined> {
    const outcome = await contendedWrite({
      send: () => this.db.send(new TransactWriteCommand({ TransactItems: items as never })),
      refusal: (reasons) => (reasons.some((reason) => reason.Code === 'ConditionalCheckFailed') ? { reasons } : undefined),
    });
    return 'reasons' in outcome ? outcome.reasons : undefined;
  }
}

const MAX_TRANSACTION_ITEMS = 100;

const RETENTION_LISTING = 'RETENTION#ACCOUNTS';
const ACCOUNT_PREFIX = 'ACCOUNT#';

/** Whether a change gives the sweep something to do: leads kept for a time, or rejection records kept shorter than the longest. */
const sweeps = (change: RetentionChange | undefined) =>
  (change?.leadDays !== undefined && change.leadDays !== null) || (change?.rejectionDays !== undefined && change.rejectionDays < DEFAULT_REJECTION_RETENTION_DAYS);

const failed = (reasons: readonly CancellationReason[] | undefined, index: number) => reasons?.[index]?.Code === 'ConditionalCheckFailed';

/** The clauses of a retention change: null lead days are stored as no attribute (kept until erased). */
const retentionUpdate = (change: RetentionChange, set: string[], remove: string[], values: Record<string, unknown>) => {
  if (change.leadDays === null) remove.push('lead_retention_days');
  else if (change.leadDays !== undefined) {
    set.push('lead_retention_days = :leadDays');
    values[':leadDays'] = change.leadDays;
  }
  if (change.rejectionDays !== undefined) {
    set.push('rejection_retention_days = :rejectionDays');
    values[':rejectionDays'] = change.rejectionDays;
  }
};
