/**
 * Refused requests kept for their account, in the Leads table (docs/data-model.md):
 *   REJECTIONS#<account> / <ISO time>#<request id>   a refused request, expiring after 30 days
 */
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Rejection, RejectionLog } from '../domain/ports.ts';
import { epochSeconds, orUnavailable, queryAll } from './requests.ts';

const REJECTION_SECONDS = 30 * 24 * 60 * 60;
const rejectionsPk = (accountId: string) => `REJECTIONS#${accountId}`;

/** The request path's write of a rejection. */
export class DynamoDbRejectionLog implements RejectionLog {
  protected readonly db: DynamoDBDocumentClient;
  protected readonly table: string;

  constructor(db: DynamoDBDocumentClient, leadsTable: string) {
    this.db = db;
    this.table = leadsTable;
  }

  async record(accountId: string, rejection: Rejection): Promise<void> {
    await orUnavailable(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: rejectionsPk(accountId),
            sk: `${rejection.at}#${rejection.requestId}`,
            item_type: 'rejection',
            ...rejection,
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
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: since ? 'pk = :pk AND sk >= :since' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': rejectionsPk(accountId), ...(since && { ':since': since }) },
    });
    return items.map(({ pk: _pk, sk: _sk, item_type: _type, expires_at: _expires, ...rejection }) => rejection as Rejection);
  }
}
