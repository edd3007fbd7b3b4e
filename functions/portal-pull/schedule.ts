import { pullScheduleHandler } from '../../shared/pulled/pull-handler.ts';
import { scheduleRuntimeFromEnvironment } from '../../shared/pulled/lambda-runtime.ts';

let runtime: ReturnType<typeof scheduleRuntimeFromEnvironment> | undefined;
const built = () => (runtime ??= scheduleRuntimeFromEnvironment());

/** Every `portalPullMinutes`: one pull per connected portal login, onto its portal's queue. */
export const handler = pullScheduleHandler({ logins: () => built().logins, queues: () => built().queues });
