/** Environment variables of the Meta functions (besides the table names and the secrets' own, secrets.ts). */
import { META_QUEUE_URL } from './queue.ts';

export const metaSettings = {
  graphApiUrl: 'META_GRAPH_API_URL',
  queueUrl: META_QUEUE_URL,
  maxReceiveCount: 'META_MAX_RECEIVE_COUNT',
  retryBaseSeconds: 'META_RETRY_BASE_SECONDS',
  retryMaxSeconds: 'META_RETRY_MAX_SECONDS',
} as const;

/**
 * The worker's time per batch: a Graph read (5 s, tried twice) and the lead's write, for up to 10
 * changes at once. The deployed function's timeout, and the deadline `npm start`'s in-memory queue
 * gives each delivery, so a stalled database is a retry there too, never a worker that hangs.
 */
export const META_WORKER_TIMEOUT_SECONDS = 30;
