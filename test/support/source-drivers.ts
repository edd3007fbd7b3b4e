/**
 * How the suite over the registry (test/sources/every-source.test.ts) drives each declared source: an
 * account ready for its deliveries, and a delivery of one person's lead under one delivery id (an API
 * key endpoint's Idempotency-Key, a platform's lead id), with the right key or a wrong one. Where a
 * source keeps a promise its own way, its driver says so as data the suite reads (`refusal`,
 * `carriesEmail`), and an asynchronous source (a descriptor with a `worker`) gives the suite its
 * worker (`worker`): its webhook answers at once, and its promises are kept behind the queue. A new
 * source adds its driver here; the suite fails for a source without one.
 */
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { META_WORKER_TIMEOUT_SECONDS } from '../../shared/meta/settings.ts';
import { signatureOf } from '../../shared/meta/signature.ts';
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';
import type { EndpointName } from '../../shared/routes.ts';
import { callTestService, projectNumber } from './call-service.ts';
import { timedWithStalls } from './event-loop.ts';
import { fieldData, leadgenNotification } from './fake-graph.ts';
import { googleTestService, standardColumns } from './google-service.ts';
import { APP_SECRET, metaTestService, VERIFY_TOKEN } from './meta-service.ts';
import { testService, validBody, type Answer, type ServiceOptions, type TestService } from './service.ts';
import { change, fromOf, message, notification, phoneNumberId, WHATSAPP_APP_SECRET, WHATSAPP_VERIFY_TOKEN, whatsappTestService } from './whatsapp-service.ts';

export interface Delivery {
  readonly mobile: string;
  /** What makes two deliveries one lead: the Idempotency-Key of an API key endpoint, a platform's lead id. */
  readonly id: string;
  /** Sent with a key that is not the account's (or the connection's), or signed with another secret. */
  readonly wrongKey?: boolean;
  /** The person's e-mail, where the source's deliveries carry one (`carriesEmail`). */
  readonly email?: string;
}

export interface SourceAccount {
  /** The secrets its deliveries carry or are signed with (a key, a page token, an app secret): never in a log line. */
  readonly secrets: readonly string[];
  /** Sends one delivery to the source's route: its answer there (a worker source's webhook answers before the lead is made). */
  deliver(delivery: Delivery): Promise<Answer>;
}

/** One receive of a queued delivery by a worker, as the queue saw it end. */
export interface WorkerReceive {
  /** The delivery id (the platform's lead id) of the message. */
  readonly id: string;
  readonly receive: number;
  /** How long it ran, less this process's own event-loop stalls meanwhile. */
  readonly ms: number;
  readonly failed: boolean;
}

/** The worker behind an asynchronous source's queue. */
export interface WorkerUnderTest {
  /** Its function's timeout: each receive's deadline counts down from it. */
  readonly timeoutMs: number;
  /** Every receive so far, in the order they ended. */
  readonly receives: readonly WorkerReceive[];
  /** The delivery ids the queue set aside after their last receive. */
  deadLetters(): readonly string[];
  /** Called as each receive ends, before the queue decides whether the message comes back. */
  onReceiveEnd(hook: ((receive: WorkerReceive) => void) | undefined): void;
}

export interface SourceUnderTest {
  readonly service: TestService;
  /** Its answer to a delivery with a wrong key (or signature). */
  readonly refusal: { readonly status: 401; readonly message: string };
  /** Whether its deliveries carry the person's e-mail (a call carries only the caller's number). */
  readonly carriesEmail: boolean;
  /** An asynchronous source's worker; absent for a source that makes the lead in the request. */
  readonly worker?: WorkerUnderTest;
  /** An account (project PRJ-1 with campaign CMP-1, duplicate setting `ignore` unless told) and its sender. */
  account(accountId: string, duplicateSetting?: DuplicateSetting): Promise<SourceAccount>;
  /** Resolves once the work behind the answers given so far is done: at once, but for a worker source, whose queue must be idle. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export type SourceDriver = (source: LeadSourceDescriptor, options: ServiceOptions) => Promise<SourceUnderTest>;

const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const accountSeed = (id: string, duplicateSetting: DuplicateSetting) => ({
  id,
  duplicateSetting,
  projects: { 'PRJ-1': ['CMP-1'] },
  website: ['Skyline landing page'],
  social: ['fb', 'ig', 'wp'],
});
const inRequest = { settled: async () => undefined, close: async () => undefined };

/** The four lead endpoints: an API key in `x-api-key`, the delivery id as Idempotency-Key. */
const apiKeyEndpoint: SourceDriver = async (source, options) => {
  const service = await testService(options);
  const name = source.name as EndpointName;
  return {
    ...inRequest,
    service,
    refusal: { status: 401, message: 'Invalid API credentials' },
    carriesEmail: true,
    account: async (accountId, duplicateSetting = 'ignore') => {
      await service.seedAccount(accountSeed(accountId, duplicateSetting));
      const key = await service.issueKey(accountId);
      return {
        secrets: [key],
        deliver: ({ mobile, id, wrongKey, email }) =>
          service.call(name, {
            apiKey: wrongKey ? `${key}-not-this-one` : key,
            body: validBody(name, project, { mobile_number: mobile, ...(email && { email }) }),
            headers: { 'idempotency-key': id },
          }),
      };
    },
  };
};

let formSequence = 0;

/** Google Ads lead forms: a form connected with its own key, the delivery id as Google's lead_id. */
const googleAds: SourceDriver = async (_source, options) => {
  const google = await googleTestService(options);
  return {
    ...inRequest,
    service: google,
    refusal: { status: 401, message: 'Invalid google_key' },
    carriesEmail: true,
    account: async (accountId, duplicateSetting = 'ignore') => {
      await google.seedAccount(accountSeed(accountId, duplicateSetting));
      const formId = String(43_000_000_000 + (Date.now() % 1_000_000) * 100 + (formSequence++ % 100));
      const key = await google.connectForm(accountId, formId);
      return {
        secrets: [key],
        deliver: ({ mobile, id, wrongKey, email }) =>
          google.deliver({
            leadId: id,
            formId,
            key: wrongKey ? `${key}-not-this-one` : key,
            columns: standardColumns(mobile, email ? [{ column_id: 'EMAIL', column_name: 'Email', string_value: email }] : []),
          }),
      };
    },
  };
};

/** Calls to project numbers: a connected number and a calls key in the query string, the delivery id as the provider's call id. */
const calls: SourceDriver = async (_source, options) => {
  const service = await callTestService(options);
  return {
    ...inRequest,
    service,
    refusal: { status: 401, message: 'Invalid API credentials' },
    carriesEmail: false,
    account: async (accountId, duplicateSetting = 'ignore') => {
      await service.seedAccount(accountSeed(accountId, duplicateSetting));
      const key = await service.callsKey(accountId);
      const number = projectNumber();
      await service.connectNumber(accountId, number);
      return {
        secrets: [key],
        deliver: ({ mobile, id, wrongKey }) =>
          service.deliver({ provider: 'generic', queryKey: wrongKey ? `${key}-not-this-one` : key, json: { call_id: id, caller_number: mobile, called_number: number } }),
      };
    },
  };
};

let pageSequence = 0;
const META_FORM = '3001';

/**
 * Meta Lead Ads, the asynchronous source: a page connected with its token and form, a delivery is the
 * signed notification of one leadgen change (the delivery id as its leadgen id) with the lead served
 * by the fake Graph API; a wrong key is a signature made with another secret. Its worker runs behind
 * the in-memory queue `npm start` uses, under the suite's function timeout.
 */
const meta: SourceDriver = async (_source, options) => {
  const service = await metaTestService({
    ...options,
    ...(options.functionTimeoutMs !== undefined && { workerTimeoutMs: options.functionTimeoutMs }),
    // Receives enough that racing writers' conflicts are retried rather than set aside.
    queueRetry: { maxReceiveCount: 10, baseSeconds: 0.05, maxSeconds: 0.2 },
  });
  const receives: WorkerReceive[] = [];
  let hook: ((receive: WorkerReceive) => void) | undefined;
  // The queue's own worker, watched: what it is given and answers is passed on unchanged.
  service.queue.consumeWith(async (event, context) => {
    const record = event.Records[0]!;
    const ended = (ms: number, failed: boolean) => {
      const receive: WorkerReceive = { id: (JSON.parse(record.body) as { leadgenId: string }).leadgenId, receive: Number(record.attributes.ApproximateReceiveCount), ms, failed };
      receives.push(receive);
      hook?.(receive);
    };
    const started = performance.now();
    try {
      // Less this process's own event-loop stalls: a busy machine's doing, not the worker's.
      const { answer, ms, stallMs } = await timedWithStalls(() => service.worker(event, context));
      ended(ms - stallMs, answer.batchItemFailures.length > 0);
      return answer;
    } catch (error) {
      ended(performance.now() - started, true);
      throw error;
    }
  });
  return {
    service,
    refusal: { status: 401, message: 'Invalid signature' },
    carriesEmail: true,
    worker: {
      timeoutMs: options.functionTimeoutMs ?? META_WORKER_TIMEOUT_SECONDS * 1000,
      receives,
      deadLetters: () => service.queue.deadLetters.map((change) => change.leadgenId),
      onReceiveEnd: (next) => void (hook = next),
    },
    account: async (accountId, duplicateSetting = 'ignore') => {
      await service.seedAccount(accountSeed(accountId, duplicateSetting));
      const pageId = String(61_000_000 + pageSequence++);
      const token = `EAAB-every-source-token-${accountId}`;
      await service.connectPage(accountId, pageId, token, { [META_FORM]: project });
      return {
        secrets: [token, APP_SECRET, VERIFY_TOKEN],
        deliver: ({ mobile, id, wrongKey, email }) => {
          service.graph.serve(id, token, {
            platform: 'fb',
            form_id: META_FORM,
            field_data: fieldData({ full_name: 'Asha Verma', phone_number: mobile, ...(email && { email }) }),
          });
          const notification = leadgenNotification([{ pageId, leadgenId: id, formId: META_FORM }]);
          return service.notify(notification, wrongKey ? { signature: signatureOf(JSON.stringify(notification), 'not-the-app-secret') } : {});
        },
      };
    },
    settled: () => service.queue.idle(),
    close: async () => {
      service.queue.stop();
      await service.graph.close();
    },
  };
};

/**
 * WhatsApp chats: a business number connected to the account, a delivery is the signed notification of
 * one message from the person (the delivery id as its message id). Each delivery id is a tap on an ad of
 * its own (a referral whose source_id is the id), so each starts a conversation of its own, and its
 * lead meets the account's duplicate setting as any source's; its redeliveries are its conversation's
 * first message again. A wrong key is a signature made with another secret.
 */
const whatsapp: SourceDriver = async (_source, options) => {
  const service = await whatsappTestService(options);
  return {
    ...inRequest,
    service,
    refusal: { status: 401, message: 'Invalid signature' },
    carriesEmail: false,
    account: async (accountId, duplicateSetting = 'ignore') => {
      await service.seedAccount(accountSeed(accountId, duplicateSetting));
      const number = phoneNumberId();
      await service.connectNumber(accountId, number);
      return {
        secrets: [WHATSAPP_APP_SECRET, WHATSAPP_VERIFY_TOKEN],
        deliver: ({ mobile, id, wrongKey }) =>
          service.deliver(
            notification(change(number, [message({ id, from: fromOf(mobile), referral: { source_type: 'ad', source_id: `ad-${id}` } })], { [fromOf(mobile)]: 'Asha Verma' })),
            wrongKey ? 'not-the-app-secret' : WHATSAPP_APP_SECRET,
          ),
      };
    },
  };
};

/** Each source's driver, by the source's name. */
export const sourceDrivers: Readonly<Record<string, SourceDriver>> = {
  website: apiKeyEndpoint,
  portala: apiKeyEndpoint,
  portalb: apiKeyEndpoint,
  social: apiKeyEndpoint,
  meta,
  google_ads: googleAds,
  call: calls,
  whatsapp,
};
