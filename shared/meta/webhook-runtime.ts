/**
 * The Meta webhook's wiring, built once per container from its environment: the app's secrets (read
 * once), the queue, the log. Nothing else: the webhook reads no table, so its bundle carries no
 * DynamoDB or KMS client.
 */
import { telemetrySink } from '../telemetry.ts';
import { sqsLeadgenQueue, type LeadgenQueue } from './queue.ts';
import { metaSecretsFromEnvironment } from './secrets.ts';
import { metaSettings } from './settings.ts';
import type { MetaWebhookRuntime } from './webhook-handler.ts';

let webhookRuntime: MetaWebhookRuntime | undefined;

export const webhookRuntimeFromEnvironment = (env: NodeJS.ProcessEnv = process.env, queue?: LeadgenQueue): MetaWebhookRuntime => {
  if (webhookRuntime && !queue) return webhookRuntime;
  const queueUrl = env[metaSettings.queueUrl];
  if (!queue && !queueUrl) throw new Error(`${metaSettings.queueUrl} is not set`);
  const built = { secrets: metaSecretsFromEnvironment(env), queue: queue ?? sqsLeadgenQueue(queueUrl!), log: telemetrySink() };
  if (!queue) webhookRuntime = built;
  return built;
};

