/**
 * Portal logins (CONTRACT.md section 17), in the Config table (docs/data-model.md), each with its
 * pull's state on its one item:
 *   PORTALLOGIN#<portal>#<login> / PORTALLOGIN   login_id, portal, login, account_id, project_id, campaign_id,
 *       map, feed, credential (sealed), connected_at, pulled_through, last_pull_at, failing_since,
 *       failing (since, reason, message), enquiries_stored, lease_holder, lease_until
 *   PORTALLOGINS#<account id> / LOGIN#<portal>#<login>   the account's listing
 *   PORTALPULLS / <portal>#<login>                        account_id: every connected login, what the schedule pulls
 * The three are written in one transaction. A removal leaves the login's item as a tombstone
 * (`removed_at`, no project or campaign, no credential): the guard a pull's writes carry
 * (connection-items.ts) never holds on it, and a seed never connects it again.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Failing, LoginChanges, MapTarget, PortalLogin, PortalLoginRegistry } from '../pulled/logins.ts';
import type { PullLoginStore } from '../pulled/ports.ts';
import { PORTAL_LOGIN_KIND, portalLoginId, portalLoginShape } from '../pulled/wire-names.ts';
import { CONNECTED, itemKey, REMOVED_AT } from './connection-items.ts';
import { asServiceFailure } from './failures.ts';
import { contendedWrite } from './contended-write.ts';
import { orUnavailable, queryAll, TableStore } from './requests.ts';

const loginKey = (portal: string, login: string) => itemKey(portalLoginShape, portalLoginId(portal, login));
const listingKey = (accountId: string, portal: string, login: string) => ({ pk: `${portalLoginShape.listingPrefix}${accountId}`, sk: `${portalLoginShape.listingSortPrefix}${portalLoginId(portal, login)}` });
const PULLS_PK = 'PORTALPULLS';
const pullsKey = (portal: string, login: string) => ({ pk: PULLS_PK, sk: portalLoginId(portal, login) });

const isConditionFailure = (error: unknown) => (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
const isCancelled = (error: unknown) => (error as { name?: string } | null)?.name === 'TransactionCanceledException';

const storedMap = (map: Readonly<Record<string, MapTarget>>) => Object.fromEntries(Object.entries(map).map(([id, t]) => [id, { project_id: t.projectId, campaign_id: t.campaignId }]));

const loginOf = (item: Record<string, any>): PortalLogin => ({
  portal: item.portal,
  login: item.login,
  accountId: item.account_id,
  projectId: item.project_id,
  campaignId: item.campaign_id,
  map: Object.fromEntries(Object.entries((item.map ?? {}) as Record<string, { project_id: string; campaign_id: string }>).map(([id, t]) => [id, { projectId: t.project_id, campaignId: t.campaign_id }])),
  ...(item.feed !== undefined && { feed: item.feed }),
  sealedCredential: item.credential,
  connectedAt: item.connected_at,
  ...(item.pulled_through !== undefined && { pulledThrough: item.pulled_through }),
  ...(item.last_pull_at !== undefined && { lastPullAt: item.last_pull_at }),
  ...(item.failing_since !== undefined && { failingSince: item.failing_since }),
  ...(item.failing !== undefined && { failing: item.failing as Failing }),
  enquiriesStored: Number(item.enquiries_stored ?? 0),
});

export class DynamoDbPortalLoginStore extends TableStore implements PortalLoginRegistry, PullLoginStore {
  async #item(portal: string, login: string) {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: loginKey(portal, login), ConsistentRead: true })));
    return Item;
  }

  async find(portal: string, login: string): Promise<PortalLogin | undefined> {
    const item = await this.#item(portal, login);
    return item && item[REMOVED_AT] === undefined ? loginOf(item) : undefined;
  }

  async wasRemoved(portal: string, login: string): Promise<boolean> {
    return (await this.#item(portal, login))?.[REMOVED_AT] !== undefined;
  }

  async insert(login: PortalLogin): Promise<boolean> {
    const names = { portal: login.portal, login: login.login, account_id: login.accountId };
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.table,
                Item: {
                  ...loginKey(login.portal, login.login),
                  item_type: PORTAL_LOGIN_KIND,
                  [portalLoginShape.idAttribute]: portalLoginId(login.portal, login.login),
                  ...names,
                  project_id: login.projectId,
                  campaign_id: login.campaignId,
                  map: storedMap(login.map),
                  ...(login.feed !== undefined && { feed: login.feed }),
                  credential: login.sealedCredential,
                  connected_at: login.connectedAt,
                  enquiries_stored: login.enquiriesStored,
                },
                // Over nothing, or over a removal tombstone (an operator's explicit connect).
                ConditionExpression: `attribute_not_exists(pk) OR attribute_exists(${REMOVED_AT})`,
              },
            },
            { Put: { TableName: this.table, Item: { ...listingKey(login.accountId, login.portal, login.login), ...names } } },
            { Put: { TableName: this.table, Item: { ...pullsKey(login.portal, login.login), ...names } } },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isCancelled(error)) return false;
      throw asServiceFailure(error);
    }
  }

  async replace(stored: PortalLogin, changes: LoginChanges): Promise<boolean> {
    const sets = ['project_id = :project', 'campaign_id = :campaign'];
    const values: Record<string, unknown> = { ':project': changes.projectId, ':campaign': changes.campaignId, ':account': stored.accountId };
    if (changes.map !== undefined) (sets.push('#map = :map'), (values[':map'] = storedMap(changes.map)));
    if (changes.feed !== undefined) (sets.push('feed = :feed'), (values[':feed'] = changes.feed));
    if (changes.sealedCredential !== undefined) (sets.push('credential = :credential'), (values[':credential'] = changes.sealedCredential));
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: loginKey(stored.portal, stored.login),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: `account_id = :account AND ${CONNECTED}`,
          ...(changes.map !== undefined && { ExpressionAttributeNames: { '#map': 'map' } }),
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw asServiceFailure(error);
    }
  }

  async remove(accountId: string, portal: string, login: string): Promise<boolean> {
    // A pull's lease or watermark written to the login's item at the same moment cancels the removal for
    // a conflict (not a refusal): sent again, as every contended write is, never answered "not found".
    const outcome = await contendedWrite({
      send: () => this.#remove(accountId, portal, login),
      refusal: (reasons) => (reasons[0]?.Code === 'ConditionalCheckFailed' ? ('not_connected' as const) : undefined),
    });
    return outcome !== 'not_connected';
  }

  async #remove(accountId: string, portal: string, login: string): Promise<void> {
    {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.table,
                Item: { ...loginKey(portal, login), item_type: 'removed_connection', portal, login, account_id: accountId, [REMOVED_AT]: new Date().toISOString() },
                ConditionExpression: `account_id = :account AND ${CONNECTED}`,
                ExpressionAttributeValues: { ':account': accountId },
              },
            },
            { Delete: { TableName: this.table, Key: listingKey(accountId, portal, login) } },
            { Delete: { TableName: this.table, Key: pullsKey(portal, login) } },
          ],
        }),
      );
    }
  }

  async list(accountId: string): Promise<PortalLogin[]> {
    const listed = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `${portalLoginShape.listingPrefix}${accountId}`, ':prefix': portalLoginShape.listingSortPrefix },
    });
    const logins = await Promise.all(listed.map((item) => this.find(item.portal, item.login)));
    return logins.filter((login): login is PortalLogin => login !== undefined && login.accountId === accountId);
  }

  async due() {
    const items = await queryAll(this.db, { TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': PULLS_PK } });
    return items.map((item) => ({ portal: item.portal, login: item.login, accountId: item.account_id }));
  }

  async lease(portal: string, login: string, holder: string, now: Date, until: Date): Promise<PortalLogin | undefined> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: loginKey(portal, login),
          UpdateExpression: 'SET lease_holder = :holder, lease_until = :until',
          ConditionExpression: `attribute_exists(pk) AND ${CONNECTED} AND (attribute_not_exists(lease_until) OR lease_until < :now)`,
          ExpressionAttributeValues: { ':holder': holder, ':until': until.toISOString(), ':now': now.toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes && loginOf(Attributes);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw asServiceFailure(error);
    }
  }

  async release(portal: string, login: string, holder: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: loginKey(portal, login),
          UpdateExpression: 'REMOVE lease_holder, lease_until',
          ConditionExpression: 'lease_holder = :holder',
          ExpressionAttributeValues: { ':holder': holder },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return;
      throw asServiceFailure(error);
    }
  }

  async #held(portal: string, login: string, holder: string, update: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName' | 'Key'>) {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: loginKey(portal, login),
          ...update,
          ConditionExpression: `lease_holder = :holder AND ${CONNECTED}${update.ConditionExpression ? ` AND ${update.ConditionExpression}` : ''}`,
          ExpressionAttributeValues: { ':holder': holder, ...update.ExpressionAttributeValues },
        }),
      );
      return { applied: true, before: Attributes };
    } catch (error) {
      if (isConditionFailure(error)) return { applied: false, before: undefined };
      throw asServiceFailure(error);
    }
  }

  async advance(portal: string, login: string, holder: string, through: string, stored: number): Promise<boolean> {
    const { applied } = await this.#held(portal, login, holder, {
      UpdateExpression: 'SET pulled_through = :through ADD enquiries_stored :stored',
      ExpressionAttributeValues: { ':through': through, ':stored': stored },
    });
    return applied;
  }

  async failed(portal: string, login: string, holder: string, at: string, lastPullAt: string, failing?: Failing): Promise<boolean> {
    const noted = await this.#held(portal, login, holder, {
      UpdateExpression: 'SET failing_since = if_not_exists(failing_since, :at), last_pull_at = :last',
      ExpressionAttributeValues: { ':at': at, ':last': lastPullAt },
    });
    if (!noted.applied || !failing) return false;
    const turned = await this.#held(portal, login, holder, {
      UpdateExpression: 'SET failing = :failing',
      ConditionExpression: 'attribute_not_exists(failing)',
      ExpressionAttributeValues: { ':failing': failing },
    });
    return turned.applied;
  }

  async succeeded(portal: string, login: string, holder: string, lastPullAt: string): Promise<Failing | undefined> {
    const { applied, before } = await this.#held(portal, login, holder, {
      UpdateExpression: 'SET last_pull_at = :last REMOVE failing, failing_since',
      ExpressionAttributeValues: { ':last': lastPullAt },
      ReturnValues: 'ALL_OLD',
    });
    return applied ? (before?.failing as Failing | undefined) : undefined;
  }

}
