/**
 * The schedule's pulls in AWS (CONTRACT.md section 17): every `portalPullMinutes` one message per
 * connected login goes onto its portal's queue, whose consumers (the pull function, at most
 * `portalPullConcurrency` at once per portal) pull it. The queue only says which login to pull: the
 * login's item holds everything else, read afresh by the pull, so a message late, repeated or
 * outliving its login's removal pulls nothing twice (the lease, the claims) and nothing removed.
 * Under npm start the same logins are pulled in process (pull.ts `pullEveryLogin`).
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import type { DueLogin, PullLoginStore } from './ports.ts';

/** Where the schedule leaves one pull per login: each portal's queue. */
export interface PullQueue {
  /** Resolves once every login's pull is queued; throws naming how many could not be. */
  send(logins: readonly DueLogin[]): Promise<void>;
}

/** The queue of each portal, by portal name, as the stack gives them to the schedule's function. */
export const PORTAL_PULL_QUEUES = 'PORTAL_PULL_QUEUES';

const pullMessage = v.object({ portal: v.pipe(v.string(), v.maxLength(50)), login: v.pipe(v.string(), v.maxLength(200)), account_id: v.pipe(v.string(), v.maxLength(200)) });

/** A queued pull read back; undefined when the body is not one. */
export const pullFromMessage = (body: string): DueLogin | undefined => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const result = v.safeParse(pullMessage, parsed);
  return result.success ? { portal: result.output.portal, login: result.output.login, accountId: result.output.account_id } : undefined;
};

const messageOf = (login: DueLogin): string => JSON.stringify({ portal: login.portal, login: login.login, account_id: login.accountId });

/** What one scheduled run did, for its log line and its metric (counts only: never a login's credential). */
export interface ScheduledPulls {
  readonly queued: number;
  /** Logins of a portal this deployment has no queue for (a portal removed from the registry). */
  readonly unknownPortal: number;
}

/** One scheduled run: every connected login queued once, on its portal's queue. */
export const schedulePulls = async (logins: Pick<PullLoginStore, 'due'>, queues: ReadonlyMap<string, PullQueue>): Promise<ScheduledPulls> => {
  const due = await logins.due();
  const byPortal = new Map<string, DueLogin[]>();
  for (const login of due) byPortal.set(login.portal, [...(byPortal.get(login.portal) ?? []), login]);
  let unknownPortal = 0;
  await Promise.all(
    [...byPortal].map(async ([portal, portalLogins]) => {
      const queue = queues.get(portal);
      if (!queue) {
        unknownPortal += portalLogins.length;
        return;
      }
      await queue.send(portalLogins);
    }),
  );
  return { queued: due.length - unknownPortal, unknownPortal };
};

/** Short timeouts: a schedule's run that cannot reach SQS fails and is retried by EventBridge, then by the next run. */
export const createPullQueueClient = () => new SQSClient({ maxAttempts: 3, requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true } });

/** A portal's SQS queue: logins sent ten to a batch, what SQS refused sent once more. */
export const sqsPullQueue = (queueUrl: string, client: SQSClient): PullQueue => ({
  async send(logins) {
    for (let start = 0; start < logins.length; start += 10) {
      let entries = logins.slice(start, start + 10).map((login, i) => ({ Id: String(i), MessageBody: messageOf(login) }));
      for (let attempt = 1; entries.length > 0; attempt += 1) {
        const { Failed = [] } = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
        if (Failed.length === 0) break;
        if (attempt >= 2) throw new Error(`SQS refused ${Failed.length} pull(s): ${Failed.map((f) => f.Code).join(', ')}`);
        const failed = new Set(Failed.map((f) => f.Id));
        entries = entries.filter((entry) => failed.has(entry.Id));
      }
    }
  },
});

/** Each portal's queue from PORTAL_PULL_QUEUES (`{"<portal>": "<queue URL>"}`), with one client for all. */
export const pullQueuesFromEnvironment = (env: NodeJS.ProcessEnv, client: SQSClient = createPullQueueClient()): ReadonlyMap<string, PullQueue> => {
  const urls = JSON.parse(env[PORTAL_PULL_QUEUES] ?? '{}') as Record<string, string>;
  return new Map(Object.entries(urls).map(([portal, url]) => [portal, sqsPullQueue(url, client)]));
};
