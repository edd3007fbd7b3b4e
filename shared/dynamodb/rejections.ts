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
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PersonKeyring } from '../domain/person-data.ts';
import { boundedRejection } from '../domain/rejections.ts';
import type { Rejection, RejectionLog } from '../domain/ports.ts';
import { containerPersonKeyring } from '../person-keyring.ts';
import { rejectionLookups } from './people.ts';
import { rejectionOfItem } from './rejection-items.ts';
import { epochSeconds, orUnavailable, putAll, queryAll, TableStore } from './requests.ts';

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
  readonly #keyring: PersonKeyring;

  constructor(db: DynamoDBDocumentClient, leadsTable: string, keyring: PersonKeyring = containerPersonKeyring()) {
    super(db, leadsTable);
    this.#keyring = keyring;
  }

  /**
   * The record, and the lookup items that find it by the person it names (CONTRACT.md section 12),
   * in one request: a put alone, or one BatchWriteItem with them. The person's details themselves are
   * not stored (only their keyed hashes, in the lookup items' keys).
   */
  async record(accountId: string, { person, ...rejection }: Rejection): Promise<void> {
    const bounded = boundedRejection(rejection);
    const key = { pk: rejectionsPk(accountId, rejectionShard(rejection.requestId)), sk: `${rejection.at}#${rejection.requestId}` };
    const expiresAt = epochSeconds(rejection.at) + REJECTION_SECONDS;
    const lookups = await rejectionLookups(this.#keyring, this.table, accountId, key, person, expiresAt);
    const item = { ...key, item_type: 'rejection', ...bounded, ...(lookups.personRefs.length > 0 && { person_refs: lookups.personRefs }), expires_at: expiresAt };
    if (lookups.puts.length === 0) {
      await orUnavailable(() => this.db.send(new PutCommand({ TableName: this.table, Item: item })));
      return;
    }
    // One BatchWriteItem (requests.ts putAll): a flood of refusals neither contends with the lead
    // transactions nor pays transactional write units.
    await putAll(this.db, this.table, [item, ...lookups.puts.map(({ Put }) => Put.Item)]);
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
      .map(rejectionOfItem);
  }
}
