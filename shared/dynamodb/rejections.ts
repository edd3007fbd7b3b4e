/**
 * Refused requests kept for their account, in the Leads table (docs/data-model.md):
 *   REJECTIONS#<account>#<shard> / <ISO time>#<request id>   a refused request, expiring after 30 days
 * Each record is bounded to 8 KiB (shared/domain/rejections.ts) and goes to one of REJECTION_SHARDS
 * partitions by its request id, so a flood of refusals for one account spreads over several partition
 * keys instead of throttling one. Listing queries every shard (a fixed, small number of queries, never
 * a scan) and merges them, oldest first. Records written before the shards existed, under
 * REJECTIONS#<account>, are read too until they expire.
 */
import { createHash } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { boundedRejection } from '../domain/rejections.ts';
import type { Rejection, RejectionLog } from '../domain/ports.ts';
import { epochSeconds, orUnavailable, queryAll, TableStore } from './requests.ts';

const REJECTION_SECONDS = 30 * 24 * 60 * 60;
/** Partition keys per account: each takes up to 1,000 writes a second, so 8 of them take a flood of 8 KiB records at ~1,000 a second. */
export const REJECTION_SHARDS = 8;

/** The shard of a record: from its request id, so a retried write of the same record lands on the same item. */
export const rejectionShard = (requestId: string): number => createHash('sha256').update(requestId).digest().readUInt32BE(0) % REJECTION_SHARDS;
const rejectionsPk = (accountId: string, shard: number) => `REJECTIONS#${accountId}#${shard}`;
/** Before the shards: one partition per account. */
const legacyRejectionsPk = (accountId: string) => `REJECTIONS#${accountId}`;

/** The request path's write of a rejection. */
export class DynamoDbRejectionLog extends TableStore implements RejectionLog {
  async record(accountId: string, rejection: Rejection): Promise<void> {
    const bounded = boundedRejection(rejection);
    await orUnavailable(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: rejectionsPk(accountId, rejectionShard(rejection.requestId)),
            sk: `${rejection.at}#${rejection.requestId}`,
            item_type: 'rejection',
            ...bounded,
            expires_at: epochSeconds(rejection.at) + REJECTION_SECONDS,
          },
        }),
      ),
    );
  }
}

/** Rejections as `admin rejections` reads them. */
export class DynamoDbRejectionArchive extends DynamoDbRejectionLog {
  /** The requests refused for an account in the last 30 days, oldest first, from `since` (ISO time). */
  async listRejections(accountId: string, since?: string): Promise<Rejection[]> {
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
      .map(({ pk: _pk, sk: _sk, item_type: _type, expires_at: _expires, ...rejection }) => rejection as Rejection);
  }
}
