/**
 * The schedule function's handler (lib/constructs/portal-pulls.ts): every `portalPullMinutes`, each
 * connected login queued on its portal's queue (queue.ts). It reads the Config table's list of logins
 * and sends to SQS, nothing more: the pull itself is the pull function's.
 */
import { createDocumentClient } from '../dynamodb/client.ts';
import { DynamoDbPortalLoginStore } from '../dynamodb/portal-logins.ts';
import { configTable } from '../dynamodb/tables.ts';
import { SERVICE_NAME } from '../metric-names.ts';
import { runtimeSettings } from '../routes.ts';
import type { PullLoginStore } from './ports.ts';
import { pullQueuesFromEnvironment, schedulePulls, type PullQueue } from './queue.ts';

type Write = (line: string) => void;
const stdout: Write = (line) => void process.stdout.write(`${line}\n`);

export const pullScheduleHandler = (parts: { logins: () => Pick<PullLoginStore, 'due'>; queues: () => ReadonlyMap<string, PullQueue>; write?: Write }) =>
  async (): Promise<{ queued: number; unknownPortal: number }> => {
    const summary = await schedulePulls(parts.logins(), parts.queues());
    (parts.write ?? stdout)(JSON.stringify({ level: summary.unknownPortal ? 'WARN' : 'INFO', message: 'portal pulls queued', service: SERVICE_NAME, queued: summary.queued, unknown_portal: summary.unknownPortal }));
    return summary;
  };

/** The schedule's parts in Lambda: the Config table alone (its list of connected logins) and each portal's queue. */
export const scheduleRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): { logins: DynamoDbPortalLoginStore; queues: ReadonlyMap<string, PullQueue> } => {
  const table = env[configTable.envVar];
  if (!table) throw new Error(`${configTable.envVar} is not set`);
  return {
    logins: new DynamoDbPortalLoginStore(createDocumentClient({ endpoint: env[runtimeSettings.dynamodbEndpoint] }), table),
    queues: pullQueuesFromEnvironment(env),
  };
};
