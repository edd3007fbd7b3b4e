import { leadCreatedDetailOf, type LeadCreatedDetail, type LeadStreamRecord } from '../../shared/dynamodb/lead-stream.ts';

/**
 * The Lead Created pipe's enrichment step: turns each Leads stream record of a stored lead into the
 * event's detail, the whole lead with its account (the pipe then puts it on the bus). A throw fails
 * the batch, which the pipe retries and, in the end, dead-letters.
 */
export const handler = async (records: readonly LeadStreamRecord[]): Promise<LeadCreatedDetail[]> =>
  records.flatMap((record) => {
    const detail = leadCreatedDetailOf(record);
    return detail ? [detail] : [];
  });
