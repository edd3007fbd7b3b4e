/**
 * The DynamoDB tables of the service: one source of truth for the CDK stack, the local run (which
 * creates them in DynamoDB Local) and the tests. Item shapes live with the store of each kind of item
 * in shared/dynamodb/ (`lead-items.ts` and `leads.ts` for leads, `rejection-items.ts` for rejection
 * records, `google-forms.ts` for connected forms, `accounts.ts`, `api-keys.ts`, ...); `repository.ts`
 * only assembles the stores. This file only says what a table is made of. See docs/data-model.md.
 */

export interface TableDefinition {
  /** Construct id in the CDK stack, and the suffix of the local table name. */
  readonly id: string;
  /** Environment variable that carries the physical table name to the functions and tools. */
  readonly envVar: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** Attribute DynamoDB's TTL reads to expire items, where the table has expiring items. */
  readonly timeToLiveAttribute?: string;
  /** Whether a stream of new images feeds downstream consumers (the Lead Created event). */
  readonly streamNewImages: boolean;
  /** Global secondary indexes (string keys, every attribute projected); sparse: only items with the keys are in them. */
  readonly indexes?: readonly IndexDefinition[];
}

export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** `keys`: only the index and table keys are copied into the index (the default copies every attribute). */
  readonly projection?: 'all' | 'keys';
}

/** API keys (by SHA-256 hash) and account configuration: accounts, projects, campaigns, sub sources. */
export const configTable: TableDefinition = {
  id: 'Config',
  envVar: 'CONFIG_TABLE_NAME',
  partitionKey: 'pk',
  sortKey: 'sk',
  streamNewImages: false,
};

/** One reason's rejection records, page by page (shared/dynamodb/rejection-archive.ts); only rejection records carry reason_pk. */
export const rejectionReasonIndex: IndexDefinition = { name: 'by_reason', partitionKey: 'reason_pk', sortKey: 'sk' };

/**
 * Leads by age, per account (CONTRACT.md section 18's retention sweep): every lead item carries
 * `age_pk` = `AGE#<account>#<shard>` and `age_at` = its created_at, so the leads of an account older
 * than a cutoff are a Query per shard (`age_at < cutoff`), oldest first, never a scan. Keys only: the
 * sweep reads each lead from the table anyway, and the index holds no person's data.
 * docs/data-model.md, "Retention".
 */
export const leadAgeIndex: IndexDefinition = { name: 'by_age', partitionKey: 'age_pk', sortKey: 'age_at', projection: 'keys' };

/** Leads, and the (account, project, mobile) claims that make the duplicate check race-safe. */
export const leadsTable: TableDefinition = {
  id: 'Leads',
  envVar: 'LEADS_TABLE_NAME',
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'expires_at',
  streamNewImages: true,
  indexes: [rejectionReasonIndex, leadAgeIndex],
};

export const tables = [configTable, leadsTable] as const;
