/**
 * The Leads table's leads as the admin side reads them (item shapes in lead-items.ts and
 * docs/data-model.md): an account's leads for `admin leads`, and the integrity check of the
 * reliability suites. Reads only, never on the request path: the request path's writes are
 * leads.ts's, which no Lambda bundle of a lead carries this beside.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { LeadRecord } from '../domain/lead.ts';
import { LEAD_ITEM_TYPE, leadPartitionKey, leadRecordOf } from './lead-items.ts';
import { orUnavailable, queryAll, TableStore } from './requests.ts';

/** Leads as the admin CLI lists them, and the integrity check of the reliability suites. */
export class DynamoDbLeadArchive extends TableStore {
  /** The leads of an account's projects, oldest first. */
  async listLeads(accountId: string, projectIds: Iterable<string>): Promise<LeadRecord[]> {
    const leads: LeadRecord[] = [];
    for (const projectId of projectIds) {
      const items = await queryAll(this.db, {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :lead)',
        ExpressionAttributeValues: { ':pk': leadPartitionKey(accountId, projectId), ':lead': 'LEAD#' },
      });
      leads.push(...items.map(leadRecordOf));
    }
    return leads.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * Reads the whole Leads table and names every broken invariant of docs/data-model.md: a mobile claim
   * without its lead, an original lead without its claim, a linked repeat whose parent is not the
   * original. An empty list means the store is consistent. For operators and the reliability suites;
   * a Scan, so never on the request path.
   */
  async checkIntegrity(): Promise<string[]> {
    const items: Record<string, any>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await orUnavailable(() => this.db.send(new ScanCommand({ TableName: this.table, ConsistentRead: true, ExclusiveStartKey })));
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);

    const leads = new Map(items.filter((item) => item.item_type === LEAD_ITEM_TYPE).map((item) => [`${item.pk}|${item.id}`, item]));
    const claims = new Map(items.filter((item) => item.item_type === 'mobile_claim').map((item) => [`${item.pk}|${item.sk.slice('MOBILE#'.length)}`, item]));
    const problems: string[] = [];
    for (const [key, claim] of claims) {
      if (!leads.has(`${claim.pk}|${claim.lead_id}`)) problems.push(`mobile claim ${key} names lead ${claim.lead_id}, which is not stored`);
    }
    for (const lead of leads.values()) {
      const claim = claims.get(`${lead.pk}|${lead.mobile_number}`);
      if (!claim) problems.push(`lead ${lead.id} has no mobile claim`);
      else if (!lead.is_repeated && claim.lead_id !== lead.id) problems.push(`lead ${lead.id} is not repeated, but the original is ${claim.lead_id}`);
      else if (lead.parent_lead_id !== null && lead.parent_lead_id !== claim.lead_id) problems.push(`lead ${lead.id} links to ${lead.parent_lead_id}, not the original ${claim.lead_id}`);
    }
    return problems;
  }
}
