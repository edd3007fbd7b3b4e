/**
 * The rejection log as the admin CLI, the admin API and the tests read it (item shapes in
 * rejection-items.ts and docs/data-model.md): pages newest first, one record by id, release marks.
 */
import { GetCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ulidTime } from '../domain/lead-id.ts';
import { storedNamesOf } from '../domain/rejections.ts';
import type { RejectionArchive, RejectionPage, RejectionPageQuery, StoredRejection } from '../domain/ports/rejections.ts';
import { DynamoDbRejectionLog } from './rejections.ts';
import {
  legacyRejectionsPk,
  reasonPk,
  REJECTION_REASON_INDEX,
  REJECTION_REASON_KEY,
  REJECTION_SECONDS,
  REJECTION_SHARDS,
  rejectionShard,
  rejectionOfItem,
  rejectionsPk,
} from './rejection-items.ts';
import { pageCursor } from './page-cursor.ts';
import { orUnavailable, queryAll, type TableStore } from './requests.ts';

const SK = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[\w-]{1,128}$/;

/** The next page's position, for the reason it was given for: opaque to readers. */
const cursors = pageCursor('r1.', SK);

/** Up to `max` items of a query, following its 1 MB pages only as far as needed. */
const queryUpTo = async (db: TableStore['db'], input: QueryCommandInput, max: number): Promise<Record<string, any>[]> => {
  const items: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await orUnavailable(() => db.send(new QueryCommand({ ...input, Limit: max - items.length, ExclusiveStartKey })));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length < max);
  return items;
};

/** Rejections as the admin CLI, the admin API and the tests read them. */
export class DynamoDbRejectionArchive extends DynamoDbRejectionLog implements RejectionArchive {
  async page(accountId: string, { limit, reason, cursor }: RejectionPageQuery): Promise<RejectionPage> {
    const before = cursor === undefined ? undefined : cursors.decode(cursor, { reason });
    const oldest = new Date(Date.now() - REJECTION_SECONDS * 1000).toISOString();
    // limit + 2 per shard: the cursor's own record (BETWEEN includes it) and one more to know a next page exists.
    const perShard = limit + 2;
    const partitions =
      reason !== undefined
        ? // The reason's records, and those stored under a former name of it (section 20), merged alike.
          storedNamesOf(reason).flatMap((name) => Array.from({ length: REJECTION_SHARDS }, (_, shard) => reasonPk(accountId, shard, name)))
        : [...Array.from({ length: REJECTION_SHARDS }, (_, shard) => rejectionsPk(accountId, shard)), legacyRejectionsPk(accountId)];
    const shards = await Promise.all(
      partitions.map((pk) =>
        queryUpTo(
          this.db,
          {
            TableName: this.table,
            ...(reason !== undefined && { IndexName: REJECTION_REASON_INDEX }),
            KeyConditionExpression: `${reason !== undefined ? `${REJECTION_REASON_KEY} = :pk` : 'pk = :pk'} AND ${before ? 'sk BETWEEN :oldest AND :before' : 'sk >= :oldest'}`,
            ExpressionAttributeValues: {
              ':pk': pk,
              ':oldest': oldest,
              ...(before && { ':before': before }),
            },
            ScanIndexForward: false,
          },
          perShard,
        ),
      ),
    );
    const merged = shards
      .flat()
      .filter((item) => before === undefined || item.sk < before)
      .sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0));
    const items = merged.slice(0, limit);
    const next = merged.length > limit ? cursors.encode(items.at(-1)!.sk, { reason }) : null;
    return { items: items.map(rejectionOfItem), next };
  }

  async find(accountId: string, rejectionId: string): Promise<StoredRejection | undefined> {
    const key = this.#keyOf(accountId, rejectionId);
    if (!key) return undefined;
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true })));
    return Item ? rejectionOfItem(Item) : undefined;
  }

  async markReleased(accountId: string, rejectionId: string, leadId: string, at: string): Promise<void> {
    const key = this.#keyOf(accountId, rejectionId)!;
    await orUnavailable(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: 'SET #released = :at, #lead = :lead',
          ExpressionAttributeNames: { '#released': 'released_at', '#lead': 'lead_id' },
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at, ':lead': leadId },
        }),
      ),
    ).catch((error) => {
      if ((error as { cause?: { name?: string } }).cause?.name !== 'ConditionalCheckFailedException' && (error as Error).name !== 'ConditionalCheckFailedException') throw error;
    });
  }

  /** The item key of a record, from its id: the id's time is its created_at, and its shard comes from it. */
  #keyOf(accountId: string, rejectionId: string): { pk: string; sk: string } | undefined {
    const time = ulidTime(rejectionId);
    if (time === undefined) return undefined;
    return { pk: rejectionsPk(accountId, rejectionShard(rejectionId)), sk: `${new Date(time).toISOString()}#${rejectionId}` };
  }

  /** Every record of an account in the last 30 days, oldest first, from `since` (ISO time): tests and small accounts only; the CLI and API page. */
  async listRejections(accountId: string, since?: string): Promise<StoredRejection[]> {
    const partitions = [legacyRejectionsPk(accountId), ...Array.from({ length: REJECTION_SHARDS }, (_, shard) => rejectionsPk(accountId, shard))];
    const shards = await Promise.all(
      partitions.map((pk) =>
        queryAll(this.db, {
          TableName: this.table,
          KeyConditionExpression: since ? 'pk = :pk AND sk >= :since' : 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk, ...(since && { ':since': since }) },
        }),
      ),
    );
    return shards
      .flat()
      .sort((a, b) => (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0))
      .map(rejectionOfItem);
  }
}
