/**
 * The Leads table's stream, read as `Lead Created` events (CONTRACT.md section 9): one event for each
 * lead item inserted, whole, with its account; nothing for anything else the table holds (mobile
 * claims, idempotency keys, rejections, person lookup items). And as `Lead Erased` events (section 12):
 * a lead item removed (only an erasure removes one), or modified by an erasure that took one of its
 * fields (`erased_fields`), carrying ids and field names only, never what was erased. The same code
 * runs in the deployed pipes' enrichment function and in `npm start`'s local stream reader, so both
 * publish exactly the same events. See docs/decisions/0005-lead-created-carries-the-lead.md.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { CountedLead } from '../domain/channel-watch.ts';
import type { LeadRecord } from '../domain/lead.ts';
import { LEAD_ITEM_TYPE, leadRecordOf } from './lead-items.ts';
import type { ErasureReason } from './erasure-reasons.ts';

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

/** What subscribers match on for erasures: `{ "source": ["crm.lead-intake"], "detail-type": ["Lead Erased"] }`. */
export const leadErasedEvent = {
  source: 'crm.lead-intake',
  detailType: 'Lead Erased',
} as const;

/**
 * The `detail` of a Lead Erased event: the lead is gone (no `fields`), or only the named fields are;
 * `reason` (CONTRACT.md section 18): a person's `request` (section 12), or the account's `retention`.
 */
export interface LeadErasedDetail {
  readonly account_id: string;
  readonly lead_id: string;
  readonly fields?: readonly string[];
  readonly reason: ErasureReason;
}

/**
 * A lead removed whole may have been erased by retention: the record cannot say (it has keys only), the
 * reason's item written with the erasure does (erasure-reasons.ts). A lead that lost a field lost it
 * to a request. `reasonOf` reads it; without one (nothing to read with), `request` stands.
 */
export const withErasureReason = async <E extends LeadEvent | undefined>(event: E, reasonOf?: (accountId: string, leadId: string) => Promise<ErasureReason>): Promise<E> => {
  if (!event || event.detailType !== leadErasedEvent.detailType || event.detail.fields !== undefined || !reasonOf) return event;
  const reason = await reasonOf(event.detail.account_id, event.detail.lead_id);
  return { ...event, detail: { ...event.detail, reason } };
};

/** A stream record as DynamoDB Streams, EventBridge Pipes and Lambda hand it on (only what is read here). */
export interface LeadStreamRecord {
  readonly eventName?: string;
  readonly dynamodb?: { readonly NewImage?: Record<string, unknown>; readonly Keys?: Record<string, unknown> };
}

/** Key prefixes of lead items (shared/dynamodb/leads.ts): what the Lead Erased pipe's REMOVE filter matches. */
export const LEAD_PK_PREFIX = 'LEADS#';
export const LEAD_SK_PREFIX = 'LEAD#';

export type LeadEvent =
  | { readonly detailType: typeof leadCreatedEvent.detailType; readonly detail: LeadCreatedDetail }
  | { readonly detailType: typeof leadErasedEvent.detailType; readonly detail: LeadErasedDetail };

export { LEAD_ITEM_TYPE };

/** The event a stream record stands for, or undefined when it is not a newly stored lead. */
export const leadCreatedDetailOf = (record: LeadStreamRecord): LeadCreatedDetail | undefined => {
  const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (record.eventName !== 'INSERT' || !image || image.item_type?.S !== LEAD_ITEM_TYPE) return undefined;
  const item = unmarshall(image);
  return { account_id: String(item.account_id), lead: leadRecordOf(item) };
};

/**
 * The Lead Erased event a stream record stands for. A removed lead item's record has its keys only
 * (the stream keeps new images): `LEADS#<account>#<project>` / `LEAD#<lead id>`, and account ids hold
 * no `#`. A lead item changed by an erasure names what it lost in `erased_fields`.
 */
export const leadErasedDetailOf = (record: LeadStreamRecord): LeadErasedDetail | undefined => {
  if (record.eventName === 'REMOVE') {
    const keys = record.dynamodb?.Keys as Record<string, AttributeValue> | undefined;
    const pk = keys?.pk?.S;
    const sk = keys?.sk?.S;
    if (!pk?.startsWith(LEAD_PK_PREFIX) || !sk?.startsWith(LEAD_SK_PREFIX)) return undefined;
    const accountId = pk.slice(LEAD_PK_PREFIX.length).split('#')[0]!;
    return { account_id: accountId, lead_id: sk.slice(LEAD_SK_PREFIX.length), reason: 'request' };
  }
  const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (record.eventName !== 'MODIFY' || !image || image.item_type?.S !== LEAD_ITEM_TYPE || !image.erased_fields) return undefined;
  const item = unmarshall(image);
  return { account_id: String(item.account_id), lead_id: String(item.id), fields: [...(item.erased_fields as Iterable<string>)].map(String), reason: 'request' };
};

/**
 * Where each source's leads name their connection (CONTRACT.md section 16): by lead source, the lead
 * item's attributes that carry it, from the sources' descriptors (`channel.connectionField`); a lead
 * with none of them came through no connection.
 */
export type ChannelConnectionFields = Readonly<Record<string, readonly string[]>>;

/** A newly stored lead as the quiet-source watch counts it: its account, channel, id and time; nothing of its person. */
export const countedLeadOf = (record: LeadStreamRecord, connectionFields: ChannelConnectionFields): CountedLead | undefined => {
  const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (record.eventName !== 'INSERT' || !image || image.item_type?.S !== LEAD_ITEM_TYPE) return undefined;
  const item = unmarshall(image);
  const source = String(item.source);
  const field = (connectionFields[source] ?? []).find((name) => item[name] !== undefined && item[name] !== null && item[name] !== '');
  return {
    accountId: String(item.account_id),
    leadId: String(item.id),
    createdAt: new Date(String(item.created_at)),
    channel: { source, sub_source: item.sub_source === undefined || item.sub_source === null ? null : String(item.sub_source), connection_id: field === undefined ? null : String(item[field]) },
  };
};

/** Whichever event a stream record stands for, if any. */
export const leadEventOf = (record: LeadStreamRecord): LeadEvent | undefined => {
  const created = leadCreatedDetailOf(record);
  if (created) return { detailType: leadCreatedEvent.detailType, detail: created };
  const erased = leadErasedDetailOf(record);
  return erased && { detailType: leadErasedEvent.detailType, detail: erased };
};
