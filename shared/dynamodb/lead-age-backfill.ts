/**
 * Leads stored before the by_age index existed (tables.ts `leadAgeIndex`) carry no `age_pk`, so the
 * retention sweep never finds them. `admin backfill-lead-ages` gives each its two index attributes, as
 * its write would have: a one-off after upgrading a stack that holds leads, run until it finds none. It
 * is the one Scan of the Leads table the service has, filtered to lead items without the attribute, a
 * page at a time; each update is conditioned on the lead still being there and still unindexed, so a run
 * beside the request path, an erasure or another run indexes each lead once and brings none back.
 */
import { ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { asServiceFailure } from './failures.ts';
import { LEAD_ITEM_TYPE, leadAgeAttributes } from './lead-items.ts';

export interface LeadAgeBackfill {
  /** Lead items the scan found without index attributes. */
  readonly found: number;
  /** Of them, given their attributes now (the others were erased or indexed meanwhile). */
  readonly indexed: number;
}

export const backfillLeadAges = async (db: DynamoDBDocumentClient, leadsTable: string, { pageSize = 500 }: { pageSize?: number } = {}): Promise<LeadAgeBackfill> => {
  let found = 0;
  let indexed = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db
      .send(
        new ScanCommand({
          TableName: leadsTable,
          Limit: pageSize,
          FilterExpression: 'item_type = :lead AND attribute_not_exists(age_pk)',
          ProjectionExpression: 'pk, sk, account_id, id, created_at',
          ExpressionAttributeValues: { ':lead': LEAD_ITEM_TYPE },
          ...(ExclusiveStartKey && { ExclusiveStartKey }),
        }),
      )
      .catch((error: unknown) => {
        throw asServiceFailure(error);
      });
    for (const item of page.Items ?? []) {
      found += 1;
      const { age_pk, age_at } = leadAgeAttributes(String(item.account_id), { id: String(item.id), created_at: String(item.created_at) });
      try {
        await db.send(
          new UpdateCommand({
            TableName: leadsTable,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'SET age_pk = :age_pk, age_at = :age_at',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(age_pk)',
            ExpressionAttributeValues: { ':age_pk': age_pk, ':age_at': age_at },
          }),
        );
        indexed += 1;
      } catch (error) {
        if ((error as { name?: string } | null)?.name !== 'ConditionalCheckFailedException') throw asServiceFailure(error);
      }
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return { found, indexed };
};
