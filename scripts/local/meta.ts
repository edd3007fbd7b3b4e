/**
 * Meta Lead Ads on a laptop (CONTRACT.md section 8): the webhook handler and the worker handler of
 * the deployed functions, joined by an in-memory queue instead of SQS. A read that keeps failing is
 * retried for about 30 seconds (1, 2, 4, 8 and 16 s apart), then recorded, so a tester sees the
 * rejection record in `admin rejections` without waiting for AWS's two hours.
 */
import { retryPolicyFromEnvironment, workerRuntimeFromEnvironment } from '../../shared/meta/runtime.ts';
import { webhookRuntimeFromEnvironment } from '../../shared/meta/webhook-runtime.ts';
import type { LeadgenChange } from '../../shared/meta/notification.ts';
import { metaSecretSettings } from '../../shared/meta/secrets.ts';
import { metaWebhookHandler } from '../../shared/meta/webhook-handler.ts';
import { metaWorkerHandler, type RetryPolicy } from '../../shared/meta/worker-handler.ts';
import type { LambdaHandler } from './environment.ts';
import { InMemoryLeadgenQueue } from './in-memory-queue.ts';

/** Six receives, 1 s doubling: the last one about 31 s after the first. */
export const LOCAL_RETRY: RetryPolicy = { maxReceiveCount: 6, baseSeconds: 1, maxSeconds: 16 };

/**
 * Local defaults of the Meta app's secrets, public in this repository (events/meta-leadgen.json is
 * signed with this app secret): for a laptop only. Set META_APP_SECRET and META_VERIFY_TOKEN to use
 * your own; the deployed functions read theirs from Secrets Manager.
 */
export const LOCAL_META_APP_SECRET = 'local-meta-app-secret';
export const LOCAL_META_VERIFY_TOKEN = 'local-meta-verify-token';

export const applyLocalMetaDefaults = (env: NodeJS.ProcessEnv): void => {
  env[metaSecretSettings.appSecret] ||= LOCAL_META_APP_SECRET;
  env[metaSecretSettings.verifyToken] ||= LOCAL_META_VERIFY_TOKEN;
};

/** The app's secrets into `target` (the environment a handler reads): `given`'s when set, else the local defaults. */
export const applyLocalMetaSecrets = (target: NodeJS.ProcessEnv, given: NodeJS.ProcessEnv): void => {
  for (const name of [metaSecretSettings.appSecret, metaSecretSettings.verifyToken]) if (given[name]) target[name] = given[name];
  applyLocalMetaDefaults(target);
};

export interface LocalMeta {
  readonly webhook: LambdaHandler;
  readonly queue: InMemoryLeadgenQueue;
}

/** The webhook and the worker in this process; call after loadHandlers (which sets the table names). */
export const startLocalMeta = (env: NodeJS.ProcessEnv = process.env, onDeadLetter?: (change: LeadgenChange) => void): LocalMeta => {
  applyLocalMetaDefaults(env);
  const retry = retryPolicyFromEnvironment(env, LOCAL_RETRY);
  const queue = new InMemoryLeadgenQueue({ maxReceiveCount: retry.maxReceiveCount, visibilitySeconds: retry.baseSeconds, ...(onDeadLetter && { onDeadLetter }) });
  queue.consumeWith(metaWorkerHandler(workerRuntimeFromEnvironment(env, queue, retry)));
  const webhook = metaWebhookHandler(webhookRuntimeFromEnvironment(env, queue)) as unknown as LambdaHandler;
  return { webhook, queue };
};

