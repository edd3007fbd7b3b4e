import { DynamoDbStoredLeads } from '../../shared/dynamodb/stored-leads.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { leadsTable } from '../../shared/dynamodb/tables.ts';
import { replayFilterHandler } from '../../shared/lead-replays.ts';
import { logLineSink } from '../../shared/log.ts';
import { runtimeSettings } from '../../shared/routes.ts';

/**
 * The enrichment of the replay pipe (lib/constructs/lead-replays.ts): of each batch of replayed
 * events, only those to deliver to the CRM; a replayed Lead Created of a lead erased since is dropped.
 */
export const handler = replayFilterHandler(
  new DynamoDbStoredLeads(createDocumentClient({ endpoint: process.env[runtimeSettings.dynamodbEndpoint] }), process.env[leadsTable.envVar]!),
  logLineSink({ message: 'replayed events filtered' }),
);
