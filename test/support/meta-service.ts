/**
 * The Meta Lead Ads path for one test file: the webhook and worker handlers over this file's tables on
 * DynamoDB Local, joined by the in-memory queue that `npm start` uses, reading leads from a fake Graph.
 */
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../../shared/http/lambda.ts';
import { graphLeadReader } from '../../shared/meta/graph.ts';
import { leadgenDependencies } from '../../shared/meta/runtime.ts';
import { signatureOf } from '../../shared/meta/signature.ts';
import { localTokenCipher } from '../../shared/meta/token-cipher.ts';
import { metaWebhookHandler } from '../../shared/meta/webhook-handler.ts';
import { metaWorkerHandler, type RetryPolicy } from '../../shared/meta/worker-handler.ts';
import { metaSource } from '../../shared/meta/source.ts';
import { InMemoryLeadgenQueue } from '../../shared/meta/in-memory-queue.ts';
import { asFunction } from './aws-calls.ts';
import { fakeGraph } from './fake-graph.ts';
import { testService, type Answer, type ServiceOptions } from './service.ts';
import { metaPagesOf } from '../../shared/meta/page-store.ts';

export const APP_SECRET = 'test-app-secret-0f9e8d7c';
export const VERIFY_TOKEN = 'test-verify-token-5a4b3c';

export interface MetaServiceOptions extends ServiceOptions {
  readonly queueRetry?: RetryPolicy;
  /** The worker function's timeout each delivery's context counts down from (default the stack's). */
  readonly workerTimeoutMs?: number;
}

export const metaTestService = async (options: MetaServiceOptions = {}) => {
  const service = await testService(options);
  const graph = await fakeGraph(APP_SECRET);
  const cipher = localTokenCipher();
  const retry = options.queueRetry ?? { maxReceiveCount: 3, baseSeconds: 0.05, maxSeconds: 0.2 };
  const secrets = async () => ({ appSecret: APP_SECRET, verifyToken: VERIFY_TOKEN });
  const queue = new InMemoryLeadgenQueue({
    maxReceiveCount: retry.maxReceiveCount,
    visibilitySeconds: retry.baseSeconds,
    ...(options.workerTimeoutMs !== undefined && { functionTimeoutMs: options.workerTimeoutMs }),
  });
  const runWorker = metaWorkerHandler({
    leadgen: leadgenDependencies({
      lead: service.runtime,
      db: createDocumentClient({ client: service.client }),
      configTable: service.tables.config,
      cipher,
      secrets,
      configCacheTtlSeconds: options.configCacheTtlSeconds ?? 30,
      // Generous: on a machine busy with other suites, a read answered late must not count as a second read.
      graph: graphLeadReader({ baseUrl: graph.url, appSecret: async () => APP_SECRET, retryDelayMs: 5, timeoutMs: 5_000 }),
    }),
    redelivery: queue,
    retry,
    log: service.runtime.log,
  });
  // The worker's AWS calls are the worker's (test/support/aws-calls.ts), whoever runs it: the queue, as
  // Lambda's poller would, or a test (a consumer of its own runs inside the webhook's call otherwise).
  const worker: typeof runWorker = (...args) => asFunction('meta-worker', () => runWorker(...args));
  queue.consumeWith(worker);
  const webhook = metaWebhookHandler({ secrets, queue, log: service.runtime.log });

  /** Connects a page to an account with its forms, as `admin add-meta-page` and `map-meta-form` do. */
  const connectPage = async (accountId: string, pageId: string, token: string, forms: Record<string, { projectID: string; campaignID: string }> = {}) => {
    await metaPagesOf(service.repository).savePage(accountId, pageId, await cipher.seal(pageId, token));
    for (const [formId, mapping] of Object.entries(forms)) await metaPagesOf(service.repository).saveForm(accountId, pageId, formId, mapping);
  };

  const answerOf = (response: LeadResponse): Answer => ({
    status: response.statusCode,
    headers: response.headers,
    body: response.headers['content-type']?.startsWith('application/json') && response.body ? JSON.parse(response.body) : response.body,
  });

  /** POSTs a notification as Meta does: signed with the app secret unless the test says otherwise. */
  const notify = async (notification: unknown, { rawBody, signature, headers = {} }: { rawBody?: string | Buffer; signature?: string | null; headers?: Record<string, string> } = {}) => {
    const body = rawBody ?? JSON.stringify(notification);
    const signed = signature === undefined ? signatureOf(Buffer.isBuffer(body) ? body : Buffer.from(body), APP_SECRET) : signature;
    const event = apiGatewayEvent({
      method: 'POST',
      path: metaSource.route.path,
      headers: { 'content-type': 'application/json', ...(signed !== null && { 'x-hub-signature-256': signed }), ...headers },
      body,
    });
    return answerOf((await asFunction('meta-webhook', () => webhook(event, lambdaContext('meta-webhook') as LeadContext))) as LeadResponse);
  };

  /** Meta's subscription check. */
  const verify = async (query: string) => {
    const event = apiGatewayEvent({ method: 'GET', path: metaSource.route.path, rawQueryString: query });
    return answerOf((await asFunction('meta-webhook', () => webhook(event, lambdaContext('meta-webhook') as LeadContext))) as LeadResponse);
  };

  const leadsOf = (accountId: string, projects: string[] = ['PRJ-1']) => service.repository.leadArchive.listLeads(accountId, projects);
  const rejectionsOf = (accountId: string) => service.repository.rejections.listRejections(accountId);

  return { ...service, graph, cipher, queue, worker, webhook, connectPage, notify, verify, leadsOf, rejectionsOf };
};

export type MetaTestService = Awaited<ReturnType<typeof metaTestService>>;
