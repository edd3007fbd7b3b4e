/**
 * The pull function's parts in Lambda, built once per container on its first message: the tables and
 * the bus the stack names, the credential's cipher (the stack's KMS key), the portals' base URLs and
 * the pull's settings, all from the function's environment (lib/constructs/portal-pulls.ts).
 */
import { createDocumentClient } from '../dynamodb/client.ts';
import { portalBaseUrls, portals } from '../portals/registry.ts';
import { runtimeSettings } from '../routes.ts';
import { tableNamesFromEnvironment } from '../runtime.ts';
import type { PullDependencies } from './pull.ts';
import { pullRuntime } from './runtime.ts';
import { portalCredentialCipher, portalEventsFromEnvironment, pullSettingsFromEnvironment } from './settings.ts';

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
