/**
 * The replay queue as the replay filter writes to it (shared/lead-replays.ts ReplayQueue): a re-check,
 * or a live `Lead Erased` held until it is due, sent back with a message timer. In AWS only: locally
 * there is no replay path (docs/decisions/0009-replays-skip-erased-leads.md).
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { ReplayQueue } from './lead-replays.ts';

/** The replay queue's URL, in the filter's environment (lib/constructs/lead-replays.ts). */
export const LEAD_REPLAY_QUEUE_URL = 'LEAD_REPLAY_QUEUE_URL';

export const sqsReplayQueue = (queueUrl: string, client = new SQSClient({})): ReplayQueue => ({
  async later(body, delaySeconds) {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, DelaySeconds: delaySeconds }));
  },
});
