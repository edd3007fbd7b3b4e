/** The call webhook's wiring (shared/webhook-runtime.ts), with the account's connected numbers. */
import { DynamoDbConnectionReader } from '../dynamodb/connections.ts';
import { connectionWebhookRuntime } from '../webhook-runtime.ts';
import { CALL_NUMBER_CONNECTION, CallNumberDirectory } from './numbers.ts';
import type { CallWebhookRuntime } from './webhook-handler.ts';

const runtime = connectionWebhookRuntime((db, configTable, ttlMs) => ({
  callNumbers: new CallNumberDirectory(new DynamoDbConnectionReader(db, configTable, CALL_NUMBER_CONNECTION), { ttlMs }),
}));

export const callWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => CallWebhookRuntime = runtime.fromEnvironment;
export const primedCallWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => Promise<CallWebhookRuntime> = runtime.primed;
