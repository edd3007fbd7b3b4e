/**
 * What a lead item is, apart from how it is written: its type marker and the lead record it holds.
 * Its own module, with no SDK import, so the Lead Created enrichment function (shared/dynamodb/lead-stream.ts)
 * reads lead items with the same code as the store without carrying the DynamoDB client.
 */
import type { LeadRecord } from '../domain/lead.ts';

/** `item_type` of lead items: what the Lead Created stream filter matches. */
export const LEAD_ITEM_TYPE = 'lead';

/**
 * Attributes of a lead item that are storage, not part of the lead record. `erased_fields` names what
 * an erasure removed from another person's lead (CONTRACT.md section 12), for its Lead Erased event.
 */
const INTERNAL_LEAD_ATTRIBUTES = ['pk', 'sk', 'item_type', 'account_id', 'erased_fields'] as const;

/** The lead record of a stored lead item: the item without its storage attributes. */
export const leadRecordOf = (item: Record<string, unknown>): LeadRecord => {
  const record = { ...item };
  for (const attribute of INTERNAL_LEAD_ATTRIBUTES) delete record[attribute];
  return record as unknown as LeadRecord;
};
