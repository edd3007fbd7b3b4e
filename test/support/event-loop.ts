import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Runs `work` and measures it as a deadline test must on a shared machine: the wall time, and the
 * longest stall of this process's event loop meanwhile (a timer due at the deadline cannot run before
 * the loop gets the CPU back). `ms - stallMs` is the time the service can be held to: in Lambda the
 * function has its CPU; here two cores are shared by every process on the machine.
 */
export const timedWithStalls = async <T>(work: () => Promise<T>): Promise<{ answer: T; ms: number; stallMs: number }> => {
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  const started = performance.now();
  try {
    const answer = await work();
    return { answer, ms: performance.now() - started, stallMs: stalls.max / 1e6 };
  } finally {
    stalls.disable();
  }
};
