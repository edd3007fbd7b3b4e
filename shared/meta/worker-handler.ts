/**
 * The Meta worker: an SQS event source with partial batch failure reporting. Each message is one
 * leadgen change (shared/meta/leadgen.ts does the work); a change to retry is reported failed and
 * comes back after an exponential back-off (its visibility timeout), and on its last receive what
 * would be retried is recorded and left to go to the dead-letter queue, where an alarm watches.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { withinFunctionDeadline } from '../deadline.ts';
import { describe } from '../http/middleware/http-envelope.ts';
import type { LogSink } from '../log.ts';
import { META_ENDPOINT, processLeadgenChange, type LeadgenDependencies } from './leadgen.ts';
import { leadgenChangeFromMessage } from './notification.ts';
import type { RedeliveryControl } from './queue.ts';

export interface RetryPolicy {
  /** Receives of a message before it goes to the dead-letter queue (the queue's redrive policy). */
  readonly maxReceiveCount: number;
  /** Wait before the second receive; it doubles per receive, up to maxSeconds. */
  readonly baseSeconds: number;
  readonly maxSeconds: number;
}

export interface MetaWorkerRuntime {
  readonly leadgen: LeadgenDependencies;
  readonly redelivery: RedeliveryControl;
  readonly retry: RetryPolicy;
  readonly log: LogSink;
}

/** Seconds until the next receive after the given one failed. */
export const backoffSeconds = (receiveCount: number, { baseSeconds, maxSeconds }: RetryPolicy): number =>
  Math.min(maxSeconds, baseSeconds * 2 ** Math.max(0, receiveCount - 1));

export const metaWorkerHandler = (runtime: MetaWorkerRuntime) => {
  const processRecord = async (record: SQSRecord): Promise<boolean> => {
    const receiveCount = Math.max(1, Number(record.attributes?.ApproximateReceiveCount ?? '1') || 1);
    const change = leadgenChangeFromMessage(record.body);
    if (!change) {
      // Not ours to read: kept (dead-letter queue) for a person, never dropped.
      runtime.log({ level: 'error', endpoint: META_ENDPOINT, message: 'queued message is not a leadgen change', messageId: record.messageId });
      return false;
    }
    const final = receiveCount >= runtime.retry.maxReceiveCount;
    const outcome = await processLeadgenChange(change, runtime.leadgen, { number: receiveCount, final });
    if (outcome.kind !== 'retry' && outcome.kind !== 'gave_up') return true;
    const delay = outcome.kind === 'gave_up' ? 0 : backoffSeconds(receiveCount, runtime.retry);
    try {
      await runtime.redelivery.redeliverAfter(record.receiptHandle, delay);
    } catch (error) {
      // The queue's own visibility timeout then decides when it comes back.
      runtime.log({ level: 'warn', endpoint: META_ENDPOINT, message: 'back-off not set', messageId: record.messageId, error: describe(error) });
    }
    return false;
  };

  // Under the invocation's deadline (shared/deadline.ts): a change whose DynamoDB calls run out of
  // time is retried from the queue rather than lost with a function timeout that fails the batch.
  return withinFunctionDeadline(async (event: SQSEvent, _context: Partial<Context>): Promise<SQSBatchResponse> => {
    const results = await Promise.all(
      event.Records.map(async (record) => {
        try {
          return { record, done: await processRecord(record) };
        } catch (error) {
          runtime.log({ level: 'error', endpoint: META_ENDPOINT, message: 'leadgen change failed unexpectedly', messageId: record.messageId, error: describe(error) });
          return { record, done: false };
        }
      }),
    );
    return { batchItemFailures: results.filter((result) => !result.done).map(({ record }) => ({ itemIdentifier: record.messageId })) };
  });
};
