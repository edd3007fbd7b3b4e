import { workerRuntimeFromEnvironment } from '../../shared/meta/runtime.ts';
import { metaWorkerHandler } from '../../shared/meta/worker-handler.ts';

/** The Meta leadgen queue's consumer: each queued change read from Graph and created as a lead. */
export const handler = metaWorkerHandler(workerRuntimeFromEnvironment());
