import { pullQueueHandler } from '../../shared/pulled/pull-handler.ts';
import { pullRuntimeFromEnvironment } from '../../shared/pulled/lambda-runtime.ts';
import type { PullDependencies } from '../../shared/pulled/pull.ts';

let runtime: PullDependencies | undefined;

/** Each queued pull of a portal login (CONTRACT.md section 17), from the stack's fixed egress address. */
export const handler = pullQueueHandler({ runtime: () => (runtime ??= pullRuntimeFromEnvironment()) });
