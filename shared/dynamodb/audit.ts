/**
 * The audit of looks at a person's data (CONTRACT.md section 18), in the Leads table: one item per
 * entry in its account's audit partition, `AUDIT#<account>` / `<at>#<entry id>`, read newest first by a
 * query of that partition (never a scan). Each item expires `retentionDays` after it was written
 * (the table's TTL, `expires_at`), at least 365 days. An erasure never touches it: it finds a person's
 * items through their lookup items, and an entry has none (it names the person only by a keyed hash).
 * docs/data-model.md, "The audit".
 */
import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { MIN_AUDIT_RETENTION_DAYS, type AuditEntry, type AuditLog, type AuditPage, type AuditPageQuery } from '../domain/audit.ts';
import { pageCursor } from './page-cursor.ts';
import { ulidAt } from '../domain/lead-id.ts';
import { orUnavailable, TableStore } from './requests.ts';

/** `item_type` of audit entries. */
export const AUDIT_ITEM_TYPE = 'audit';

const auditPk = (accountId: string) => `AUDIT#${accountId}`;

const SK = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[0-9A-Z]{26}$/;

interface CursorScope {
  readonly since?: string;
  readonly operation?: string;
}

/** The next page's position, for the query it was given for: opaque to readers. */
const cursors = pageCursor('a1.', SK);

const entryOf = (item: Record<string, unknown>): AuditEntry => ({
  at: String(item.at),
  account_id: String(item.account_id),
  operation: item.operation as AuditEntry['operation'],
  principal: String(item.principal),
  request_id: String(item.request_id),
  subject: typeof item.subject === 'string' ? item.subject : null,
  count: Number(item.count),
});

export class DynamoDbAuditLog extends TableStore implements AuditLog {
  readonly #retentionSeconds: number;

  constructor(db: DynamoDBDocumentClient, table: string, retentionDays: number = MIN_AUDIT_RETENTION_DAYS) {
    super(db, table);
    this.#retentionSeconds = Math.max(retentionDays, MIN_AUDIT_RETENTION_DAYS) * 86_400;
  }

  async record(entry: AuditEntry): Promise<void> {
    const at = Date.parse(entry.at);
    await orUnavailable(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: auditPk(entry.account_id),
            sk: `${entry.at}#${ulidAt(at)}`,
            item_type: AUDIT_ITEM_TYPE,
            ...entry,
            expires_at: Math.floor(at / 1000) + this.#retentionSeconds,
          },
        }),
      ),
    );
  }

  async page(accountId: string, { limit, since, operation, cursor }: AuditPageQuery): Promise<AuditPage> {
    const scope: CursorScope = { ...(since !== undefined && { since }), ...(operation !== undefined && { operation }) };
    const before = cursor === undefined ? undefined : cursors.decode(cursor, { since: scope.since, operation: scope.operation });
    const lower = since ?? '0';
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    // One more than the page, to know whether a next page exists; an operation's filter may take several reads.
    do {
      const page = await orUnavailable(() =>
        this.db.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: before ? 'pk = :pk AND sk BETWEEN :since AND :before' : 'pk = :pk AND sk >= :since',
            ...(operation !== undefined && { FilterExpression: '#operation = :operation', ExpressionAttributeNames: { '#operation': 'operation' } }),
            ExpressionAttributeValues: { ':pk': auditPk(accountId), ':since': lower, ...(before && { ':before': before }), ...(operation !== undefined && { ':operation': operation }) },
            ScanIndexForward: false,
            Limit: limit + 2,
            ExclusiveStartKey,
          }),
        ),
      );
      // BETWEEN includes the cursor's own entry: it was on the page before.
      items.push(...(page.Items ?? []).filter((item) => item.sk !== before));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey && items.length <= limit);
    const shown = items.slice(0, limit);
    return { items: shown.map(entryOf), next: items.length > limit ? cursors.encode(String(shown.at(-1)!.sk), { since: scope.since, operation: scope.operation }) : null };
  }
}
