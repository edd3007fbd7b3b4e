/**
 * The numbers accounts connect to their projects (CONTRACT.md section 13), in the Config table
 * (docs/data-model.md):
 *   CALLNUMBERS#<account id> / NUMBER#<10 digits>   number, account_id, project_id, campaign_id,
 *                                                   connected_at; removed_at once removed
 * One item per number: the webhook's read is one GetItem (none when warm), the listing one Query, and
 * each write one conditional UpdateItem. A removed number keeps its item, marked removed, so a seed
 * applied again never connects it back (CONTRACT.md section 14). Kept out of the account's own
 * partition: the lead endpoints read that partition whole, and have no use for numbers.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CallNumberConnection, CallNumberReader, CallNumberRegistry } from '../domain/call-numbers.ts';
import { asServiceFailure } from './failures.ts';
import { orUnavailable, queryAll, TableStore } from './requests.ts';

export const CALL_NUMBERS_PK_PREFIX = 'CALLNUMBERS#';
const numbersPk = (accountId: string) => `${CALL_NUMBERS_PK_PREFIX}${accountId}`;
const numberKey = (accountId: string, number: string) => ({ pk: numbersPk(accountId), sk: `NUMBER#${number}` });

const connectionOf = (item: Record<string, any>): CallNumberConnection => ({
  accountId: item.account_id,
  number: item.number,
  projectId: item.project_id,
  campaignId: item.campaign_id,
  connectedAt: item.connected_at,
});

const isConnected = (item: Record<string, any> | undefined): item is Record<string, any> => item !== undefined && item.removed_at === undefined;

/** The webhook's read of a number: one strongly consistent GetItem (a number connected a moment ago works at once). */
export class DynamoDbCallNumberReader extends TableStore implements CallNumberReader {
  async findCallNumber(accountId: string, number: string): Promise<CallNumberConnection | undefined> {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: numberKey(accountId, number), ConsistentRead: true })));
    return isConnected(Item) ? connectionOf(Item) : undefined;
  }
}

/** Numbers as the number lifecycle (shared/domain/call-numbers.ts) and the seed manage them. */
export class DynamoDbCallNumberStore extends DynamoDbCallNumberReader implements CallNumberRegistry {
  /**
   * Connects or moves the number in one UpdateItem; a number not connected before (or removed) gets
   * this connection's time, a connected one keeps its own. The old item, handed back, tells which. A
   * seed's write (`keepRemoved`) is refused in the write itself for a number marked removed.
   */
  async connectCallNumber(connection: CallNumberConnection, keepRemoved = false): Promise<{ outcome: 'created' | 'changed' | 'removed'; connectedAt: string }> {
    try {
      const { Attributes: old } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: numberKey(connection.accountId, connection.number),
          UpdateExpression:
            'SET #number = :number, account_id = :account, project_id = :project, campaign_id = :campaign, ' +
            'connected_at = if_not_exists(connected_at, :now) REMOVE removed_at',
          ...(keepRemoved && { ConditionExpression: 'attribute_not_exists(removed_at)' }),
          ExpressionAttributeNames: { '#number': 'number' },
          ExpressionAttributeValues: {
            ':number': connection.number,
            ':account': connection.accountId,
            ':project': connection.projectId,
            ':campaign': connection.campaignId,
            ':now': connection.connectedAt,
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return isConnected(old) ? { outcome: 'changed', connectedAt: old.connected_at } : { outcome: 'created', connectedAt: connection.connectedAt };
    } catch (error) {
      if (keepRemoved && error instanceof Error && error.name === 'ConditionalCheckFailedException') return { outcome: 'removed', connectedAt: connection.connectedAt };
      throw asServiceFailure(error);
    }
  }

  async removeCallNumber(accountId: string, number: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: numberKey(accountId, number),
          UpdateExpression: 'SET removed_at = :now REMOVE connected_at',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(removed_at)',
          ExpressionAttributeValues: { ':now': new Date().toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return false;
      throw asServiceFailure(error);
    }
  }

  async listCallNumbers(accountId: string): Promise<CallNumberConnection[]> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': numbersPk(accountId) },
      ConsistentRead: true,
    });
    return items.filter(isConnected).map(connectionOf);
  }
}
