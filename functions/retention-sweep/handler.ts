import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { configTable, leadsTable } from '../../shared/dynamodb/tables.ts';
import { containerPersonKeyring } from '../../shared/person-keyring.ts';
import { runtimeSettings } from '../../shared/routes.ts';
import { retentionSweepHandler } from '../../shared/retention.ts';

/**
 * The retention sweep (CONTRACT.md section 18), invoked daily by its schedule (lib/constructs/retention-sweep.ts):
 * erases each account's aged-out leads and rejection records, until its time is nearly up; the next
 * run goes on from where this one stopped. A failure throws: the schedule retries, and the alarm on
 * the function's errors tells the operator.
 */
export const handler = retentionSweepHandler({
  db: createDocumentClient({ endpoint: process.env[runtimeSettings.dynamodbEndpoint] }),
  configTable: process.env[configTable.envVar]!,
  leadsTable: process.env[leadsTable.envVar]!,
  keyring: containerPersonKeyring(),
});
