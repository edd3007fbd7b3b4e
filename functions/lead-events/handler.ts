import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { erasureReasonReader, type ErasureReason } from '../../shared/dynamodb/erasure-reasons.ts';
import { leadEventOf, withErasureReason, type LeadCreatedDetail, type LeadErasedDetail, type LeadStreamRecord } from '../../shared/dynamodb/lead-stream.ts';
import { leadsTable } from '../../shared/dynamodb/tables.ts';

type ReasonOf = (accountId: string, leadId: string) => Promise<ErasureReason>;

/**
 * The enrichment step of the Lead Created and Lead Erased pipes: turns each Leads stream record of a
 * stored or erased lead into the event's detail (the pipe then puts it on the bus with its own
 * detail type: each pipe's filter lets through only its own kind of record). A lead removed whole is
 * looked up for its erasure's reason (CONTRACT.md section 18: one GetItem of its ERASED# item, the only
 * read this function makes). A throw fails the batch, which the pipe retries and, in the end,
 * dead-letters.
 */
export const enrichment =
  (reasonOf?: ReasonOf) =>
  async (records: readonly LeadStreamRecord[]): Promise<(LeadCreatedDetail | LeadErasedDetail)[]> => {
    const details: (LeadCreatedDetail | LeadErasedDetail)[] = [];
    for (const record of records) {
      const event = await withErasureReason(leadEventOf(record), reasonOf);
      if (event) details.push(event.detail);
    }
    return details;
  };

let deployedReasonOf: ReasonOf | undefined;
const tableName = process.env[leadsTable.envVar];

export const handler = (records: readonly LeadStreamRecord[]) => {
  if (tableName) deployedReasonOf ??= erasureReasonReader(createDocumentClient(), tableName);
  return enrichment(deployedReasonOf)(records);
};
