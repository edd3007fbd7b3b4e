import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { configTable, leadsTable } from '../../shared/dynamodb/tables.ts';
import { runtimeSettings } from '../../shared/routes.ts';
import {
  channelWatch,
  connectionFieldsFromEnvironment,
  eventBridgePublisher,
  silenceSettingsFromEnvironment,
  sourceWatchHandler,
  sourceWatchSettings,
} from '../../shared/source-watch.ts';

/**
 * The quiet-source watch (CONTRACT.md section 16): the Leads stream's new leads counted on their
 * channels, and, on its schedule, the check that sends `Source Silent` (its `Source Resumed` comes
 * with the channel's next lead). Settings and the bus from the stack (lib/constructs/source-watch.ts).
 */
export const handler = sourceWatchHandler({
  watch: channelWatch({
    db: createDocumentClient({ endpoint: process.env[runtimeSettings.dynamodbEndpoint] }),
    leadsTable: process.env[leadsTable.envVar]!,
    configTable: process.env[configTable.envVar]!,
    events: eventBridgePublisher(process.env[sourceWatchSettings.busName]!),
    settings: silenceSettingsFromEnvironment(),
  }),
  connectionFields: connectionFieldsFromEnvironment(),
});
