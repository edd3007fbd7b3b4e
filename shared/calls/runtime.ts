/** The call webhook's wiring (shared/webhook-runtime.ts), with the account's connected numbers and the per-key bound on requests. */
import { DynamoDbConnectionReader } from '../dynamodb/connections.ts';
import { DynamoDbKeyRequestRate } from '../dynamodb/request-rates.ts';
import { connectionWebhookRuntime } from '../webhook-runtime.ts';
import { ConnectionDirectory } from '../intake/connection-directory.ts';
import type { CallWebhookRuntime } from './webhook-handler.ts';
import { callNumberConnectionKey, callRequestsSetting } from './wire-names.ts';

/** Requests per calls key and minute, from CALL_REQUESTS_PER_KEY_PER_MINUTE (300 when unset). */
export const callRequestsPerKeyPerMinuteFromEnvironment = (env: NodeJS.ProcessEnv = process.env): number => {
  const text = env[callRequestsSetting.environment];
  if (text === undefined || text === '') return callRequestsSetting.default;
  const perMinute = Number(text);
  if (!Number.isSafeInteger(perMinute) || perMinute < 1) throw new Error(`${callRequestsSetting.environment} must be a whole number, 1 or more`);
  return perMinute;
};

const runtime = connectionWebhookRuntime((db, configTable, ttlMs, { leadsTable, env }) => ({
  connections: new ConnectionDirectory(new DynamoDbConnectionReader(db, configTable, callNumberConnectionKey), { ttlMs }),
  keyRequests: new DynamoDbKeyRequestRate(db, leadsTable, callRequestsPerKeyPerMinuteFromEnvironment(env)),
}));

export const callWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => CallWebhookRuntime = runtime.fromEnvironment;
export const primedCallWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => Promise<CallWebhookRuntime> = runtime.primed;
