import { leadEventOf, type LeadCreatedDetail, type LeadErasedDetail, type LeadStreamRecord } from '../../shared/dynamodb/lead-stream.ts';

/**
 * The enrichment step of the Lead Created and Lead Erased pipes: turns each Leads stream record of a
 * stored or erased lead into the event's detail (the pipe then puts it on the bus with its own
 * detail type: each pipe's filter lets through only its own kind of record). A throw fails the
 * batch, which the pipe retries and, in the end, dead-letters.
 */
export const handler = async (records: readonly LeadStreamRecord[]): Promise<(LeadCreatedDetail | LeadErasedDetail)[]> =>
  records.flatMap((record) => {
    const event = leadEventOf(record);
    return event ? [event.detail] : [];
  });
