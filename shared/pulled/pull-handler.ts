/**
 * The pull function's handler (lib/constructs/portal-pulls.ts): each queued message one pull of one
 * login (pull.ts `pullLogin`), no slice started in the function's last minute; a login another pull
 * holds, or one removed since it was queued, is done (the running pull, or nothing, covers it). A pull
 * that failed on something other than its portal (the database, a bug) is reported failed and comes
 * back once; the next scheduled pull tries again in any case, from the watermark.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { SERVICE_NAME } from '../metric-names.ts';
import type { PullDependencies } from './pull.ts';
import { pullLogin } from './pull.ts';
import { pullFromMessage } from './queue.ts';
import { isPullNowRequest, type PullNowAnswer, type PullNowRequest } from './remote-pull.ts';

/** Time kept back at the end of an invocation: a slice (a 20-second read and its writes) fits in it. */
export const SLICE_RESERVE_MS = 60_000;

type Write = (line: string) => void;
const stdout: Write = (line) => void process.stdout.write(`${line}\n`);

export function pullQueueHandler(parts: { runtime: () => PullDependencies; write?: Write; now?: () => Date }) {
  return async (event: SQSEvent | PullNowRequest, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse | PullNowAnswer> => {
    const write = parts.write ?? stdout;
    const now = parts.now ?? (() => new Date());
    if (isPullNowRequest(event)) {
      // `pull-portal` or the admin API, through this function for its fixed address: that account's login only.
      const { account_id: accountId, portal, login } = event.pull_now;
      const outcome = await pullLogin(parts.runtime(), portal, login, accountId, new Date(now().getTime() + context.getRemainingTimeInMillis() - SLICE_RESERVE_MS));
      return typeof outcome === 'string' ? { refused: outcome } : { summary: outcome };
    }
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      const pull = pullFromMessage(record.body);
      if (!pull) {
        // Not ours to read: kept for a person (the dead-letter queue), never dropped silently.
        write(JSON.stringify({ level: 'ERROR', message: 'queued message is not a portal pull', service: SERVICE_NAME, message_id: record.messageId }));
        failures.push({ itemIdentifier: record.messageId });
        continue;
      }
      const stopBy = new Date(now().getTime() + context.getRemainingTimeInMillis() - SLICE_RESERVE_MS);
      try {
        const outcome = await pullLogin(parts.runtime(), pull.portal, pull.login, undefined, stopBy);
        if (typeof outcome === 'string') write(JSON.stringify({ level: 'INFO', message: 'portal pull skipped', service: SERVICE_NAME, account_id: pull.accountId, portal: pull.portal, login: pull.login, why: outcome }));
      } catch (error) {
        write(JSON.stringify({ level: 'ERROR', message: 'portal pull failed', service: SERVICE_NAME, account_id: pull.accountId, portal: pull.portal, login: pull.login, error: (error as Error | undefined)?.name ?? 'Error' }));
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
