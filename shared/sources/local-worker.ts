/**
 * An asynchronous source on a laptop (`npm start`, `npm run invoke`): its webhook, its queue and its
 * worker in one process, with whatever stands in for the platform. The module its descriptor names
 * (`worker.local`) default-exports one, so the local tools run it without naming the source.
 */
import type { LeadContext, LeadEvent, LeadResponse } from '../http/lambda.ts';

export interface LocalWorkerSource {
  /**
   * Sets its local defaults in `env` (a laptop's secrets, where its platform is read from), then starts
   * its queue and worker; `onGiveUp` hears of a delivery given up after its retries.
   */
  start(env: NodeJS.ProcessEnv, onGiveUp?: (message: string) => void): Promise<RunningLocalWorkerSource>;
}

export interface RunningLocalWorkerSource {
  /** Its webhook, as the local server and `npm run invoke` call a handler. */
  readonly webhook: (event: LeadEvent, context: LeadContext, ...more: never[]) => Promise<LeadResponse>;
  /** Resolves once its queue is empty and no worker runs: the leads of what was acknowledged are made. */
  idle(): Promise<void>;
  /** Stops what it started (a stand-in server). */
  close(): Promise<void>;
  /** What its banner line's placeholders are on this run (`{graph}`). */
  readonly banner: Readonly<Record<string, string>>;
}
