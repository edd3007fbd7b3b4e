/**
 * Meta Lead Ads on a laptop (CONTRACT.md section 8): the webhook handler and the worker handler of
 * the deployed functions, joined by an in-memory queue instead of SQS. A read that keeps failing is
 * retried for about 30 seconds (1, 2, 4, 8 and 16 s apart), then recorded, so a tester sees the
 * rejection record in `admin rejections` without waiting for AWS's two hours.
 */
import { retryPolicyFromEnvironment, workerRuntimeFromEnvironment } from './runtime.ts';
import { webhookRuntimeFromEnvironment } from './webhook-runtime.ts';
import type { LeadgenChange } from './notification.ts';
import { applyLocalMetaDefaults } from '../meta-app-local.ts';
import { metaWebhookHandler } from './webhook-handler.ts';
import { metaWorkerHandler, type RetryPolicy } from './worker-handler.ts';
import type { LocalWorkerSource, RunningLocalWorkerSource } from '../sources/local-worker.ts';
import { standInUnlessConfigured } from './graph-stand-in.ts';
import { InMemoryLeadgenQueue } from './in-memory-queue.ts';

/** Six receives, 1 s doubling: the last one about 31 s after the first. */
export const LOCAL_RETRY: RetryPolicy = { maxReceiveCount: 6, baseSeconds: 1, maxSeconds: 16 };

export { applyLocalMetaDefaults, applyLocalMetaSecrets, LOCAL_META_APP_SECRET, LOCAL_META_VERIFY_TOKEN } from '../meta-app-local.ts';

export interface LocalMeta {
  readonly webhook: RunningLocalWorkerSource['webhook'];
  readonly queue: InMemoryLeadgenQueue;
}

/** The webhook and the worker in this process; call after loadHandlers (which sets the table names). */
export const startLocalMeta = (env: NodeJS.ProcessEnv = process.env, onDeadLetter?: (change: LeadgenChange) => void): LocalMeta => {
  applyLocalMetaDefaults(env);
  const retry = retryPolicyFromEnvironment(env, LOCAL_RETRY);
  const queue = new InMemoryLeadgenQueue({ maxReceiveCount: retry.maxReceiveCount, visibilitySeconds: retry.baseSeconds, ...(onDeadLetter && { onDeadLetter }) });
  queue.consumeWith(metaWorkerHandler(workerRuntimeFromEnvironment(env, queue, retry)));
  const webhook = metaWebhookHandler(webhookRuntimeFromEnvironment(env, queue)) as unknown as RunningLocalWorkerSource['webhook'];
  return { webhook, queue };
};


/** Meta on a laptop for `npm start` and `npm run invoke` (its descriptor's `worker.local`): with no Graph API named, the local stand-in serves the leads. */
const localMetaSource: LocalWorkerSource = {
  async start(env, onGiveUp) {
    applyLocalMetaDefaults(env);
    const graphStandIn = await standInUnlessConfigured(env);
    const { webhook, queue } = startLocalMeta(
      env,
      onGiveUp && ((change) => onGiveUp(`Meta leadgen ${change.leadgenId} of page ${change.pageId} gave up after its retries (see admin rejections)`)),
    );
    return {
      webhook,
      idle: () => queue.idle(),
      close: async () => {
        await graphStandIn?.close();
      },
      banner: { graph: graphStandIn ? `the local Graph API stand-in at ${graphStandIn.url}, as META_GRAPH_API_URL is unset` : env.META_GRAPH_API_URL || 'graph.facebook.com' },
    };
  },
};
export default localMetaSource;
