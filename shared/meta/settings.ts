/** Environment variables of the Meta functions (besides the table names and the secrets' own, secrets.ts). */
import { META_QUEUE_URL } from './queue.ts';

export const metaSettings = {
  graphApiUrl: 'META_GRAPH_API_URL',
  queueUrl: META_QUEUE_URL,
  maxReceiveCount: 'META_MAX_RECEIVE_COUNT',
  retryBaseSeconds: 'META_RETRY_BASE_SECONDS',
  retryMaxSeconds: 'META_RETRY_MAX_SECONDS',
} as const;
