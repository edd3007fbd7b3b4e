/** The call webhook's wiring (shared/webhook-runtime.ts), with the account's connected numbers. */
import { CallNumberDirectory } from '../domain/call-numbers.ts';
import { DynamoDbCallNumberReader } from '../dynamodb/call-numbers.ts';
import { connectionWebhookRuntime } from '../webhook-runtime.ts';
import type { CallWebhookRuntime } from './webhook-handler.ts';

const runtime = connectionWebhookRuntime((db, configTable, ttlMs) => ({
  callNumbers: new CallNumberDirectory(new DynamoDbCallNumberReader(db, configTable), { ttlMs }),
}));

export const callWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => CallWebhookRuntime = runtime.fromEnvironment;
export const primedCallWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => Promise<CallWebhookRuntime> = runtime.primed;
