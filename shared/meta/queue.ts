/**
 * Where the webhook leaves leadgen changes for the worker. A notification is acknowledged only once
 * every change in it is durably queued: in AWS an SQS queue, locally an in-memory queue
 * (shared/meta/in-memory-queue.ts) that runs the same worker handler.
 */
import { SendMessageBatchCommand, SQSClient, ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { LeadgenChange } from './notification.ts';

export interface LeadgenQueue {
  /** Resolves once every change is queued; throws when any could not be. */
  enqueue(changes: readonly LeadgenChange[]): Promise<void>;
}

/** How the worker asks for a message to come back later than the queue's default (its back-off). */
export interface RedeliveryControl {
  redeliverAfter(receiptHandle: string, seconds: number): Promise<void>;
}

export const META_QUEUE_URL = 'META_QUEUE_URL';

/**
 * Short timeouts: Meta wants its answer within seconds, and a 500 (the queue could not be reached)
 * is safe, since Meta retries it.
 */
export const createSqsClient = () =>
  new SQSClient({ maxAttempts: 2, requestHandler: { connectionTimeout: 800, requestTimeout: 1_500, throwOnRequestTimeout: true } });

export const sqsLeadgenQueue = (queueUrl: string, client: SQSClient = createSqsClient()): LeadgenQueue & RedeliveryControl => ({
  async enqueue(changes) {
    const batches: LeadgenChange[][] = [];
    for (let start = 0; start < changes.length; start += 10) batches.push(changes.slice(start, start + 10));
    await Promise.all(
      batches.map(async (batch) => {
        let entries = batch.map((change, i) => ({ Id: String(i), MessageBody: JSON.stringify(change) }));
        // SQS may accept part of a batch: what failed is sent once more, then the notification fails.
        for (let attempt = 1; entries.length > 0; attempt += 1) {
          const { Failed = [] } = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
          if (Failed.length === 0) return;
          if (attempt >= 2) throw new Error(`SQS refused ${Failed.length} leadgen change(s): ${Failed.map((f) => f.Code).join(', ')}`);
          const failed = new Set(Failed.map((f) => f.Id));
          entries = entries.filter((entry) => failed.has(entry.Id));
        }
      }),
    );
  },
  async redeliverAfter(receiptHandle, seconds) {
    await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: Math.round(seconds) }));
  },
});
