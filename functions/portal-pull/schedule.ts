import { pullScheduleHandler, scheduleRuntimeFromEnvironment } from '../../shared/pulled/schedule-handler.ts';

let runtime: ReturnType<typeof scheduleRuntimeFromEnvironment> | undefined;
const built = () => (runtime ??= scheduleRuntimeFromEnvironment());

/** Every `portalPullMinutes`: one pull per connected portal login, onto its portal's queue. */
export const handler = pullScheduleHandler({ logins: () => built().logins, queues: () => built().queues });
