/**
 * The SQS queue of the Meta worker, in memory, for `npm start` and the tests: messages are handed to
 * the real worker handler as SQS events (one record each, with its receive count), a failed record
 * comes back after the back-off the worker asked for, and after its last receive it is set aside as
 * a dead letter, as the deployed queue's redrive policy does. Nothing survives a restart.
 */
import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContext } from '../http/api-gateway-event.ts';
import { META_WORKER_TIMEOUT_SECONDS } from './settings.ts';
import type { LeadgenChange } from './notification.ts';
import type { LeadgenQueue, RedeliveryControl } from './queue.ts';

/** The worker as Lambda runs it: an SQS event and the invocation's context (its remaining time). */
export type QueueConsumer = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface InMemoryQueueOptions {
  readonly maxReceiveCount: number;
  /** Visibility timeout when the consumer asked for no back-off. */
  readonly visibilitySeconds?: number;
  /**
   * The worker function's timeout: each delivery's context counts down from it, as Lambda's does,
   * so the worker's deadline (shared/deadline.ts) holds locally too. @default META_WORKER_TIMEOUT_SECONDS
   */
  readonly functionTimeoutMs?: number;
  readonly onDeadLetter?: (change: LeadgenChange) => void;
}

interface Message {
  readonly id: string;
  readonly body: string;
  receiveCount: number;
}

export class InMemoryLeadgenQueue implements LeadgenQueue, RedeliveryControl {
  #consumer: QueueConsumer | undefined;
  readonly #options: InMemoryQueueOptions;
  readonly #delays = new Map<string, number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #inFlight = 0;
  #idleWaiters: (() => void)[] = [];
  readonly deadLetters: LeadgenChange[] = [];

  constructor(options: InMemoryQueueOptions) {
    this.#options = options;
  }

  /** The worker handler that consumes the queue (set after construction: the worker needs the queue too). */
  consumeWith(consumer: QueueConsumer): void {
    this.#consumer = consumer;
  }

  async enqueue(changes: readonly LeadgenChange[]): Promise<void> {
    for (const change of changes) this.#schedule({ id: randomUUID(), body: JSON.stringify(change), receiveCount: 0 }, 0);
  }

  async redeliverAfter(receiptHandle: string, seconds: number): Promise<void> {
    this.#delays.set(receiptHandle, seconds);
  }

  /** Resolves when no message is being handled or waiting to come back. */
  idle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Drops what is waiting (the process is stopping). */
  stop(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  #schedule(message: Message, seconds: number): void {
    this.#inFlight += 1;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#deliver(message).finally(() => {
        this.#inFlight -= 1;
        if (this.#inFlight === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
      });
    }, seconds * 1000);
    this.#timers.add(timer);
  }

  async #deliver(message: Message): Promise<void> {
    message.receiveCount += 1;
    const receiptHandle = `${message.id}#${message.receiveCount}`;
    let failed = true;
    try {
      const context = lambdaContext(WORKER_NAME, this.#options.functionTimeoutMs ?? META_WORKER_TIMEOUT_SECONDS * 1000);
      const { batchItemFailures } = await this.#consumer!({ Records: [recordOf(message, receiptHandle)] }, context);
      failed = batchItemFailures.some((failure) => failure.itemIdentifier === message.id);
    } catch {
      failed = true;
    }
    const delay = this.#delays.get(receiptHandle) ?? this.#options.visibilitySeconds ?? 30;
    this.#delays.delete(receiptHandle);
    if (!failed) return;
    if (message.receiveCount >= this.#options.maxReceiveCount) {
      const change = JSON.parse(message.body) as LeadgenChange;
      this.deadLetters.push(change);
      this.#options.onDeadLetter?.(change);
      return;
    }
    this.#schedule(message, delay);
  }
}

const WORKER_NAME = 'meta-worker';

const recordOf = (message: Message, receiptHandle: string): SQSRecord => ({
  messageId: message.id,
  receiptHandle,
  body: message.body,
  attributes: {
    ApproximateReceiveCount: String(message.receiveCount),
    SentTimestamp: String(Date.now()),
    SenderId: 'local',
    ApproximateFirstReceiveTimestamp: String(Date.now()),
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:local:000000000000:lead-intake-meta-leadgen',
  awsRegion: 'local',
});
