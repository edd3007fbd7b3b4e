/**
 * The pull function's parts in Lambda, built once per container on its first message: the tables and
 * the bus the stack names, the credential's cipher (the stack's KMS key), the portals' base URLs and
 * the pull's settings, all from the function's environment (lib/constructs/portal-pulls.ts).
 */
import { createDocumentClient } from '../dynamodb/client.ts';
import { DynamoDbPortalLoginStore } from '../dynamodb/portal-logins.ts';
import { portalBaseUrls, portals } from '../portals/registry.ts';
import { configTable } from '../dynamodb/tables.ts';
import { runtimeSettings } from '../routes.ts';
import { tableNamesFromEnvironment } from '../runtime.ts';
import type { PullDependencies } from './pull.ts';
import { pullQueuesFromEnvironment, type PullQueue } from './queue.ts';
import { pullRuntime } from './runtime.ts';
import { portalCredentialCipher, portalEventsFromEnvironment, pullSettingsFromEnvironment } from './settings.ts';

const required = (name: string, env: NodeJS.ProcessEnv): string => {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const documentClient = (env: NodeJS.ProcessEnv) => createDocumentClient({ endpoint: env[runtimeSettings.dynamodbEndpoint] });

export const pullRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): PullDependencies =>
  pullRuntime({
    db: documentClient(env),
    tables: tableNamesFromEnvironment(env),
    cipher: portalCredentialCipher(env),
    events: portalEventsFromEnvironment(env),
    portals,
    baseUrls: portalBaseUrls(env),
    settings: pullSettingsFromEnvironment(env),
  });

/** The schedule reads the Config table alone (its list of connected logins). */
export const scheduleRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env): { logins: DynamoDbPortalLoginStore; queues: ReadonlyMap<string, PullQueue> } => ({
  logins: new DynamoDbPortalLoginStore(documentClient(env), required(configTable.envVar, env)),
  queues: pullQueuesFromEnvironment(env),
});
