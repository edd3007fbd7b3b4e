/**
 * The retention sweep under `npm start` (CONTRACT.md section 18, "In AWS a daily schedule ..."): every
 * RETENTION_SWEEP_SECONDS (3600) the same sweep the deployed function runs, with retention days
 * RETENTION_DAY_SECONDS long (86400), so a tester watches 30 days pass in 30 seconds: set an account's
 * `set-retention --leads 30`, RETENTION_DAY_SECONDS=1 and RETENTION_SWEEP_SECONDS=5, and a lead older
 * than 30 s is erased within 5 s more (its Lead Erased says `"reason": "retention"`). One sweep at a
 * time; a line on the terminal when one erased anything (counts only).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableNames } from '../../shared/dynamodb/repository.ts';
import { containerPersonKeyring } from '../../shared/person-keyring.ts';
import { retentionDaySecondsOf, retentionSweepSecondsOf, runRetentionSweep } from '../../shared/retention.ts';
import type { SweepSummary } from '../../shared/domain/retention-sweep.ts';

export interface RetentionSweepsOptions {
  readonly db: DynamoDBDocumentClient;
  readonly tables: TableNames;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
}

export interface RunningRetentionSweeps {
  readonly banner: string[];
  /** One sweep now (or the one under way): what the tests and the timer run. */
  sweep(): Promise<SweepSummary | undefined>;
  stop(): Promise<void>;
}

/** The settings, checked: a malformed one stops npm start before anything runs. */
export const retentionSweepSettings = (env: NodeJS.ProcessEnv) => ({ daySeconds: retentionDaySecondsOf(env), sweepSeconds: retentionSweepSecondsOf(env) });

export const startRetentionSweeps = ({ db, tables, env, log }: RetentionSweepsOptions): RunningRetentionSweeps => {
  const { daySeconds, sweepSeconds } = retentionSweepSettings(env);
  let running: Promise<SweepSummary | undefined> | undefined;
  const sweep = () =>
    (running ??= runRetentionSweep({ db, configTable: tables.config, leadsTable: tables.leads, keyring: containerPersonKeyring(), daySeconds })
      .then((summary) => {
        if (summary.leads > 0 || summary.rejections > 0) log(JSON.stringify({ message: 'retention sweep', ...summary }));
        return summary;
      })
      .catch((error: unknown) => {
        log(`the retention sweep failed: ${(error as Error).name}`);
        return undefined;
      })
      .finally(() => (running = undefined)));
  const timer = setInterval(() => void sweep(), sweepSeconds * 1000);
  timer.unref();
  return {
    banner: [
      `Retention:           swept every ${sweepSeconds} s (RETENTION_SWEEP_SECONDS), a retention day ${daySeconds} s long (RETENTION_DAY_SECONDS): admin set-retention --account ID --leads DAYS`,
    ],
    sweep,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
};
