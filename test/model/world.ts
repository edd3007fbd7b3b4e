/**
 * The real service the model drives (test/model/service-model.test.ts): the project's handlers (the
 * four lead endpoints, the Google Ads webhook, the call webhook, the WhatsApp webhook and the admin API) on fresh tables of the run's DynamoDB
 * Local, reached through a fault relay, with challenges checked by a fake siteverify. One world per
 * fast-check run, so every run (and every shrink of a failing one) starts from an empty service.
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type * as fc from 'fast-check';
import { parseSeed, applySeed } from '../../scripts/local/seed.ts';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { containerPersonKeyring } from '../../shared/person-keyring.ts';
import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { runRetentionSweep } from '../../shared/retention.ts';
import type { PersonHandle } from '../../shared/domain/person-data.ts';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { adminCall } from '../support/admin-handler.ts';
import { challengesAgainst, type FakeSiteverify } from '../support/fake-siteverify.ts';
import { dynamoDbError, type FaultRelay, type RelayAction, type RelayedRequest } from '../support/fault-relay.ts';
import { callWebhookOn, type CallDeliveryParts } from '../support/call-service.ts';
import { googleTestService } from '../support/google-service.ts';
import { whatsappWebhookOn } from '../support/whatsapp-service.ts';
import { serviceLogs } from './actions.ts';
import { fakeNinetyNineAcres } from '../support/fake-portals.ts';
import { portalHttp } from '../../shared/pulled/http.ts';
import { portalCredentialScope } from '../../shared/pulled/logins.ts';
import { pullRuntime } from '../../shared/pulled/runtime.ts';
import { portals } from '../../shared/portals/registry.ts';
import { localTokenCipher } from '../../shared/sealed-secrets.ts';

export const ACCOUNT = 'acc-model';
export const SHOP = 'https://shop.example';
export const CAPTCHA_SECRET = 'model-captcha-secret';
export const PROJECTS = [
  { projectID: 'PRJ-1', campaignID: 'CMP-1' },
  { projectID: 'PRJ-2', campaignID: 'CMP-2' },
] as const;
/** Mobiles and e-mails of the people the model submits; chosen so that their parts are easy to find in a log. */
export const MOBILES = ['9811104729', '9822208351', '9833306164'] as const;
export const EMAILS = ['asha@one.model-person.example', 'ravi@two.model-person.example'] as const;
export const FORM_IDS = ['47000000001', '47000000002'] as const;
/** The project numbers calls reach: the first in the seed (PRJ-1), the second connected by the operator only. */
export const CALL_NUMBERS = ['8047100001', '8047100002'] as const;
export const SEEDED_CALL_NUMBER = { number: CALL_NUMBERS[0], projectID: 'PRJ-1', campaignID: 'CMP-1' } as const;
/** The WhatsApp Business numbers chats reach (phone number ids): the first in the seed (PRJ-1), the second connected by the operator only. */
export const WHATSAPP_NUMBERS = ['106540300000001', '106540300000002'] as const;
export const SEEDED_WHATSAPP_NUMBER = { phoneNumberId: WHATSAPP_NUMBERS[0], projectID: 'PRJ-1', campaignID: 'CMP-1' } as const;

/** The 99acres login the seed connects (CONTRACT.md section 17), to PRJ-1. */
export const PORTAL_LOGIN = 'model-broker';
const PORTAL_PASSWORD = 'model-portal-password';

export const SEED_SERVER_KEY = 'model-seed-server-key';
export const SEED_BROWSER_KEY = 'model-seed-browser-key';
export const SEED_FORM_KEY = 'model-seed-google-form-key';

/** The seed file the world starts from and re-applies (`npm start` applies it at every start). */
export const seedFile = (setting: DuplicateSetting) => ({
  accounts: [
    {
      id: ACCOUNT,
      name: 'Model Realty',
      duplicateHandling: setting,
      projects: PROJECTS.map(({ projectID, campaignID }) => ({ id: projectID, name: projectID, campaigns: [{ id: campaignID, name: campaignID }] })),
      subSources: { website: ['Skyline landing page'], social: ['fb', 'ig', 'wp'] },
      googleForms: [{ formId: FORM_IDS[0], key: SEED_FORM_KEY, projectID: 'PRJ-1', campaignID: 'CMP-1' }],
      callNumbers: [SEEDED_CALL_NUMBER],
      whatsappNumbers: [SEEDED_WHATSAPP_NUMBER],
      portals: [{ portal: '99acres', login: PORTAL_LOGIN, credential: PORTAL_PASSWORD, projectID: 'PRJ-1', campaignID: 'CMP-1' }],
    },
  ],
  apiKeys: [
    { key: SEED_SERVER_KEY, accountId: ACCOUNT, active: true, keyId: 'key_modelserver' },
    { key: SEED_BROWSER_KEY, accountId: ACCOUNT, active: true, keyId: 'key_modelbrowser', origins: [SHOP] },
  ],
});

/** Write operations of DynamoDB's API: where a lost answer or a conflict can fall. */
const WRITES = new Set(['TransactWriteItems', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

/** Faults of one step: the nth write's answer lost (on every resend of it), the nth transaction cancelled for a conflict `times` in a row. */
export interface StepFaults {
  readonly loseWrite?: number;
  readonly conflictTransaction?: number;
  readonly conflictTimes?: number;
}

export const describeFaults = (faults: StepFaults) =>
  [
    faults.loseWrite !== undefined && `answer of write #${faults.loseWrite} lost`,
    faults.conflictTransaction !== undefined && `transaction #${faults.conflictTransaction} conflicts x${faults.conflictTimes ?? 1}`,
  ]
    .filter(Boolean)
    .join(', ');

/**
 * Orders the DynamoDB requests of actions that run together with fast-check's scheduler: each request
 * waits at the relay until the scheduler picks it. It picks when every running action has a request
 * waiting (so any order of their requests can come up), or when nothing new has arrived for a moment
 * (an action busy elsewhere, such as the challenge provider). Which interleavings come up can vary
 * with timing; what is asserted never does.
 */
export class Interleaving {
  readonly #scheduler: fc.Scheduler;
  #running = 0;
  #lastArrival = 0;

  constructor(scheduler: fc.Scheduler) {
    this.#scheduler = scheduler;
  }

  gate(label: string): Promise<unknown> {
    this.#lastArrival = performance.now();
    return this.#scheduler.schedule(Promise.resolve(label), label);
  }

  async run<T>(actions: readonly (() => Promise<T>)[]): Promise<PromiseSettledResult<T>[]> {
    this.#running = actions.length;
    const all = Promise.allSettled(actions.map((action) => action().finally(() => void (this.#running -= 1))));
    let done = false;
    void all.then(() => void (done = true));
    while (!done) {
      const waiting = this.#scheduler.count();
      const quiet = performance.now() - this.#lastArrival > 4;
      if (waiting > 0 && (waiting >= this.#running || quiet)) await this.#scheduler.waitNext(1);
      else await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return all;
  }
}

export const buildWorld = async ({ relay, provider, setting }: { relay: FaultRelay; provider: FakeSiteverify; setting: DuplicateSetting }) => {
  const service = await googleTestService({ endpoint: relay.endpoint, configCacheTtlSeconds: 0, challenges: challengesAgainst(provider) });
  // TTL 0 as for every other actor: a number connected, moved or removed is seen by the next call.
  const calls = callWebhookOn(service, { configCacheTtlSeconds: 0 });
  const whatsapp = whatsappWebhookOn(service, { configCacheTtlSeconds: 0 });
  // The admin API's handler, its log lines kept with the lead handlers' (the log invariant reads both).
  serviceLogs.lines = service.logs;
  const adminFunction = adminHandler(adminRuntime(service.repository, (line) => void service.logs.push({ ...line })));
  const admin = (method: string, pathAndQuery: string, body?: unknown) => adminCall(adminFunction, method, pathAndQuery, body);
  const db = createDocumentClient({ client: service.client });
  const keyring = containerPersonKeyring();

  let faults: StepFaults = {};
  let interleaving: Interleaving | undefined;
  let injected = 0;
  let writes = 0;
  let transactions = 0;
  let conflictsLeft = 0;
  const lost = new Set<string>();

  relay.plan(async (request: RelayedRequest): Promise<RelayAction | undefined> => {
    if (interleaving) await interleaving.gate(`${request.operation}`);
    const text = JSON.stringify(request.body);
    // The SDK sends the same request again after a lost answer: each resend is lost too.
    if (lost.has(text)) return (injected += 1), { kind: 'pass-then-500' };
    if (request.operation === 'TransactWriteItems') {
      transactions += 1;
      if (transactions === faults.conflictTransaction) conflictsLeft = faults.conflictTimes ?? 1;
      if (conflictsLeft > 0) {
        conflictsLeft -= 1;
        injected += 1;
        const items = (request.body.TransactItems as unknown[]).length;
        // Real DynamoDB names the item another transaction holds; the rest are None.
        return dynamoDbError.transactionCanceled(...Array.from({ length: items }, (_, i) => (i === (transactions % items) ? 'TransactionConflict' : 'None')));
      }
    }
    if (WRITES.has(request.operation)) {
      writes += 1;
      if (writes === faults.loseWrite) {
        lost.add(text);
        injected += 1;
        return { kind: 'pass-then-500' };
      }
    }
    return undefined;
  });

  // 99acres, faked on its wire; the pull as the schedule runs it, through the relay like every other write.
  const portalServer = await fakeNinetyNineAcres();
  const portalLogin = portalServer.login(PORTAL_LOGIN, PORTAL_PASSWORD);
  const pulls = pullRuntime({
    db,
    tables: service.tables,
    cipher: localTokenCipher(undefined, portalCredentialScope),
    events: { publish: async () => undefined },
    portals,
    baseUrls: new Map([['99acres', portalServer.url]]),
    settings: { overlapMinutes: 15, failingMinutes: 60 },
    http: portalHttp({ timeoutMs: 2_000 }),
    log: (line) => void service.logs.push({ ...line }),
  });

  const applyTheSeed = async () => applySeed(service.repository, parseSeed(seedFile(setting)));
  await applyTheSeed();
  // The provider's key: limited to calls (the only kind the webhook takes), never rotated by the model.
  const callsKey = await calls.callsKey(ACCOUNT);

  /** Every item of the Leads table, as stored. */
  const leadsTableItems = async () => {
    const items: Record<string, any>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: service.tables.leads, ConsistentRead: true, ExclusiveStartKey }));
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  };

  return {
    service,
    admin,
    setting,
    applyTheSeed,
    leadsTableItems,
    /** A telephony provider's delivery of a call, with the account's calls key. */
    deliverCall: (parts: Omit<CallDeliveryParts, 'headerKey' | 'queryKey'>, keyIn: 'header' | 'query') => calls.deliver({ ...parts, ...(keyIn === 'header' ? { headerKey: callsKey } : { queryKey: callsKey }) }),
    /** Meta's signed WhatsApp Business Account notification. */
    deliverChat: (notification: unknown) => whatsapp.deliver(notification),
    digest: (handle: PersonHandle) => keyring.digest(handle),
    /**
     * The retention sweep (CONTRACT.md section 18) as the deployed function runs it, the account keeping
     * leads and rejection records `days` retention days, at `now`: with `now` that many days after the
     * sweep starts, everything stored before it began has aged out.
     */
    sweep: async (days: number, now: Date) => {
      await new AccountAdmin(service.repository.accounts).setRetention(ACCOUNT, { leadDays: days, rejectionDays: Math.min(days, 30) });
      return runRetentionSweep({ db, configTable: service.tables.config, leadsTable: service.tables.leads, keyring, now: () => now });
    },
    /** The model's 99acres login on the fake portal: enquiries made there, and faults of its next answers. */
    portal: { add: portalLogin.add, failNext: portalServer.failNext, clearFaults: portalServer.clearFaults },
    pulls,
    /** Runs one step's work under its faults and its interleaving; answers how many faults were injected. */
    step: async <T>(stepFaults: StepFaults, order: Interleaving | undefined, work: () => Promise<T>): Promise<{ result: T; injected: number }> => {
      faults = stepFaults;
      interleaving = order;
      injected = writes = transactions = conflictsLeft = 0;
      lost.clear();
      try {
        const result = await work();
        return { result, injected };
      } finally {
        // Faults belong to their step: nothing left over reaches the next one (or the seed, or key admin).
        faults = {};
        interleaving = undefined;
        conflictsLeft = 0;
        lost.clear();
      }
    },
    dispose: async () => {
      relay.heal();
      await portalServer.close();
      for (const table of [service.tables.config, service.tables.leads]) {
        await service.client.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
      }
      service.client.destroy();
    },
  };
};

export type World = Awaited<ReturnType<typeof buildWorld>>;
