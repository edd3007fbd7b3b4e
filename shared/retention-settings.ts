/**
 * The retention settings of the environment (CONTRACT.md section 18), in a module of their own: the admin
 * function reads the length of a retention day for `retained_until` without carrying the sweep.
 */
import { DEFAULT_RETENTION_DAY_SECONDS } from './domain/retention.ts';

export const retentionSettings = {
  /** The length of a retention day in seconds (default 86400); only `npm start` and its tests shorten it. */
  daySeconds: 'RETENTION_DAY_SECONDS',
  /** How often `npm start` sweeps, in seconds (default 3600). */
  sweepSeconds: 'RETENTION_SWEEP_SECONDS',
} as const;

export const DEFAULT_RETENTION_SWEEP_SECONDS = 3600;

const positiveOr = (text: string | undefined, fallback: number, name: string): number => {
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of seconds, not ${JSON.stringify(text)}`);
  return value;
};

export const retentionDaySecondsOf = (env: NodeJS.ProcessEnv = process.env): number =>
  positiveOr(env[retentionSettings.daySeconds], DEFAULT_RETENTION_DAY_SECONDS, retentionSettings.daySeconds);

export const retentionSweepSecondsOf = (env: NodeJS.ProcessEnv = process.env): number =>
  positiveOr(env[retentionSettings.sweepSeconds], DEFAULT_RETENTION_SWEEP_SECONDS, retentionSettings.sweepSeconds);
