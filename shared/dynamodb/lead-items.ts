/**
 * What a lead item is, apart from how it is written: its type marker and the lead record it holds.
 * Its own module, with no SDK import, so the Lead Created enrichment function (shared/dynamodb/lead-stream.ts)
 * reads lead items with the same code as the store without carrying the DynamoDB client.
 */
import { createHash } from 'node:crypto';
import type { LeadRecord } from '../domain/lead.ts';

/** `item_type` of lead items: what the Lead Created stream filter matches. */
export const LEAD_ITEM_TYPE = 'lead';

/** Partitions of an account's leads in the by_age index (tables.ts, leadAgeIndex): a burst of one account's leads spreads over them. */
export const LEAD_AGE_SHARDS = 8;
export const leadAgePk = (accountId: string, shard: number) => `AGE#${accountId}#${shard}`;

/**
 * The by_age index keys of a lead item (CONTRACT.md section 18's retention sweep): its account's shard,
 * from its id, and its created_at as UTC ISO text, so text order is time order.
 */
export const leadAgeAttributes = (accountId: string, lead: Pick<LeadRecord, 'id' | 'created_at'>) => ({
  age_pk: leadAgePk(accountId, createHash('sha256').update(lead.id).digest()[0]! % LEAD_AGE_SHARDS),
  age_at: new Date(lead.created_at).toISOString(),
});

/**
 * Attributes of a lead item that are storage, not part of the lead record. `erased_fields` names what
 * an erasure removed from another person's lead (CONTRACT.md section 12), for its Lead Erased event.
 * `meta_page_id` is the Meta page a lead came through (section 8's record carries only the leadgen and
 * form ids): the quiet-source watch's connection id for Meta's leads (section 16).
 */
const INTERNAL_LEAD_ATTRIBUTES = ['pk', 'sk', 'item_type', 'account_id', 'erased_fields', 'meta_page_id', 'age_pk', 'age_at'] as const;

/**
 * The lead record's own members, in the order the reference lists them (docs/reference.md, section 4)
 * and a new lead's answer carries them.
 */
const RECORD_ORDER = ['id', 'name', 'mobile_number', 'email', 'alternate_number', 'projectID', 'campaignID', 'source', 'sub_source', 'is_repeated', 'parent_lead_id', 'created_at'];

/**
 * The lead record of a stored lead item: the item without its storage attributes, its members in one
 * order whatever order DynamoDB returned the attributes in (which varies from item to item): section
 * 4's first, then the endpoint's own fields by name. `admin leads --json`, access requests and events
 * print the same lead the same way every time.
 */
export const leadRecordOf = (item: Record<string, unknown>): LeadRecord => {
  const internal: ReadonlySet<string> = new Set(INTERNAL_LEAD_ATTRIBUTES);
  const own = RECORD_ORDER.filter((name) => Object.hasOwn(item, name));
  const rest = Object.keys(item)
    .filter((name) => !internal.has(name) && !RECORD_ORDER.includes(name))
    .sort();
  return Object.fromEntries([...own, ...rest].map((name) => [name, name === 'consent' ? inConsentOrder(item[name]) : item[name]])) as unknown as LeadRecord;
};

/** A consent's members (CONTRACT.md section 18) in the order the contract lists them: DynamoDB keeps a map's members in an order of its own. */
const CONSENT_ORDER = ['notice', 'given_at', 'purposes'];
const inConsentOrder = (consent: unknown): unknown => {
  if (typeof consent !== 'object' || consent === null || Array.isArray(consent)) return consent;
  const members = Object.keys(consent);
  const ordered = [...CONSENT_ORDER.filter((name) => members.includes(name)), ...members.filter((name) => !CONSENT_ORDER.includes(name)).sort()];
  return Object.fromEntries(ordered.map((name) => [name, (consent as Record<string, unknown>)[name]]));
};

/**
 * The key of a lead's item: `LEADS#<account>#<project>` / `LEAD#<lead id>` (docs/data-model.md). Here,
 * with no SDK import, so the replay filter (shared/dynamodb/stored-leads.ts) finds a lead by the ids its
 * event carries with the store's own key shape.
 */
export const leadPartitionKey = (accountId: string, projectId: string): string => `LEADS#${accountId}#${projectId}`;
export const leadItemKey = (accountId: string, projectId: string, leadId: string) => ({ pk: leadPartitionKey(accountId, projectId), sk: `LEAD#${leadId}` });
