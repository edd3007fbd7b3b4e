import { DynamoDbStoredLeads } from '../../shared/dynamodb/stored-leads.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { leadsTable } from '../../shared/dynamodb/tables.ts';
import { LEAD_REPLAY_QUEUE_URL, sqsReplayQueue } from '../../shared/lead-replay-queue.ts';
import { replayFilterHandler } from '../../shared/lead-replays.ts';
import { logLineSink } from '../../shared/log.ts';
import { runtimeSettings } from '../../shared/routes.ts';

/**
 * The enrichment of the replay pipe (lib/constructs/lead-replays.ts): of each batch of replayed
 * events, only those to deliver to the CRM; a replayed Lead Created of a lead erased since is dropped,
 * and one passed on is checked again later (a `Lead Erased` follows if an erasure came in between).
 */
export const handler = replayFilterHandler({
  leads: new DynamoDbStoredLeads(createDocumentClient({ endpoint: process.env[runtimeSettings.dynamodbEndpoint] }), process.env[leadsTable.envVar]!),
  queue: sqsReplayQueue(process.env[LEAD_REPLAY_QUEUE_URL]!),
  log: logLineSink({ message: 'replayed events filtered' }),
});
