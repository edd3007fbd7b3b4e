/**
 * What the replay filter asks the Leads table (CONTRACT.md section 14: erased leads are never delivered
 * again): whether a lead is still stored, and which of its fields an erasure took since. One
 * strongly consistent GetItem of the lead's item by the ids its event carries: an erasure removes a
 * person's lead item whole, and takes another person's number from a lead naming it only as its
 * `alternate_number` (recording it in `erased_fields`). Consistent, so an erasure that has answered
 * is always seen. Reads lead items only, never writes.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { leadItemKey } from './lead-items.ts';
import { erasureReasonReader, type ErasureReason } from './erasure-reasons.ts';

/** A lead as the table holds it now: the fields of its record an erasure took, if any. */
export interface StoredLead {
  readonly erasedFields: readonly string[];
}

export interface StoredLeads {
  /** The lead, or undefined when its item is gone (erased). Throws when the table cannot answer. */
  find(accountId: string, projectId: string, leadId: string): Promise<StoredLead | undefined>;
  /** Why a lead no longer stored was erased (CONTRACT.md section 18), for the Lead Erased the filter makes; absent: `request`. */
  erasureReason?(accountId: string, leadId: string): Promise<ErasureReason>;
}

export class DynamoDbStoredLeads implements StoredLeads {
  readonly #db: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(db: DynamoDBDocumentClient, leadsTable: string) {
    this.#db = db;
    this.#table = leadsTable;
  }

  async find(accountId: string, projectId: string, leadId: string): Promise<StoredLead | undefined> {
    const { Item } = await this.#db.send(
      new GetCommand({
        TableName: this.#table,
        Key: leadItemKey(accountId, projectId, leadId),
        ConsistentRead: true,
        // Only what the decision needs: never the person's data.
        ProjectionExpression: 'pk, erased_fields',
      }),
    );
    if (!Item) return undefined;
    const erased = Item.erased_fields as Iterable<unknown> | undefined;
    return { erasedFields: erased ? [...erased].map(String) : [] };
  }

  erasureReason(accountId: string, leadId: string): Promise<ErasureReason> {
    return erasureReasonReader(this.#db, this.#table)(accountId, leadId);
  }
}
