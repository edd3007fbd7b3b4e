/**
 * Why a lead was erased, for its `Lead Erased` event (CONTRACT.md section 18: `detail.reason`,
 * `request` or `retention`). The event comes from the Leads stream's REMOVE record of the lead item,
 * which holds its keys only (the stream keeps new images), so an erasure that is not a person's request
 * writes, in the same transaction as the delete, one item naming the reason:
 *   ERASED#<account>#<lead id> / ERASED    reason, expires_at (REASON_DAYS)
 * It holds no person's data. No item: the erasure was a request (section 12's, or a lead that lost only
 * a field). Read by whoever turns the record into the event (lead-events enrichment, npm start's reader).
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export type ErasureReason = 'request' | 'retention';

/**
 * Long enough for any delivery of the event: the stream keeps records 24 hours, and a dead-lettered
 * event is redriven within the dead-letter queue's 14 days.
 */
const REASON_DAYS = 15;

export const ERASURE_REASON_PK_PREFIX = 'ERASED#';
export const erasureReasonKey = (accountId: string, leadId: string) => ({ pk: `${ERASURE_REASON_PK_PREFIX}${accountId}#${leadId}`, sk: 'ERASED' });

/** The reason's item, for the erasure's own transaction. */
export const erasureReasonPut = (table: string, accountId: string, leadId: string, reason: ErasureReason) => ({
  Put: {
    TableName: table,
    Item: { ...erasureReasonKey(accountId, leadId), item_type: 'erasure_reason', reason, expires_at: Math.floor(Date.now() / 1000) + REASON_DAYS * 86_400 },
  },
});

/** Why the lead was erased: its reason's item, or `request` when there is none. */
export const erasureReasonReader =
  (db: DynamoDBDocumentClient, table: string) =>
  async (accountId: string, leadId: string): Promise<ErasureReason> => {
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: erasureReasonKey(accountId, leadId), ConsistentRead: true }));
    return Item?.reason === 'retention' ? 'retention' : 'request';
  };
