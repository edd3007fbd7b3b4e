/**
 * The Leads table's stream, read as `Lead Created` events (CONTRACT.md section 9): one event for each
 * lead item inserted, whole, with its account; nothing for anything else the table holds (mobile
 * claims, idempotency keys, rejections) nor for a change to an existing item. The same code runs in
 * the deployed pipe's enrichment function and in `npm start`'s local stream reader, so both publish
 * exactly the same events. See docs/decisions/0005-lead-created-carries-the-lead.md.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { LeadRecord } from '../domain/lead.ts';
import { LEAD_ITEM_TYPE, leadRecordOf } from './lead-items.ts';

/** What subscribers match on: `{ "source": ["crm.lead-intake"], "detail-type": ["Lead Created"] }`. */
export const leadCreatedEvent = {
  source: 'crm.lead-intake',
  detailType: 'Lead Created',
} as const;

/** The `detail` of a Lead Created event. Receivers deduplicate by `lead.id` (delivery is at least once). */
export interface LeadCreatedDetail {
  readonly account_id: string;
  readonly lead: LeadRecord;
}

/** A stream record as DynamoDB Streams, EventBridge Pipes and Lambda hand it on (only what is read here). */
export interface LeadStreamRecord {
  readonly eventName?: string;
  readonly dynamodb?: { readonly NewImage?: Record<string, unknown> };
}

export { LEAD_ITEM_TYPE };

/** The event a stream record stands for, or undefined when it is not a newly stored lead. */
export const leadCreatedDetailOf = (record: LeadStreamRecord): LeadCreatedDetail | undefined => {
  const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (record.eventName !== 'INSERT' || !image || image.item_type?.S !== LEAD_ITEM_TYPE) return undefined;
  const item = unmarshall(image);
  return { account_id: String(item.account_id), lead: leadRecordOf(item) };
};
