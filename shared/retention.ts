/**
 * The retention sweep's wiring (CONTRACT.md section 18): its settings from the environment, and the
 * sweep over the repository's stores. In AWS a daily schedule invokes functions/retention-sweep; under
 * `npm start`, scripts/local/retention-sweeps.ts runs it every RETENTION_SWEEP_SECONDS, with retention
 * days RETENTION_DAY_SECONDS long, so a tester watches 30 days pass in 30 seconds.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sweepRetention, type SweepSummary } from './domain/retention-sweep.ts';
import { DynamoDbAccountStore } from './dynamodb/accounts.ts';
import { DynamoDbPersonData } from './dynamodb/people.ts';
import type { PersonKeyring } from './domain/person-data.ts';

export * from './retention-settings.ts';

export interface RetentionSweepParts {
  readonly db: DynamoDBDocumentClient;
  readonly configTable: string;
  readonly leadsTable: string;
  readonly keyring: PersonKeyring;
  readonly daySeconds?: number;
  readonly now?: () => Date;
  readonly remainingMs?: () => number;
}

/** One sweep over the tables. */
export const runRetentionSweep = ({ db, configTable, leadsTable, keyring, daySeconds, now, remainingMs }: RetentionSweepParts): Promise<SweepSummary> =>
  sweepRetention({
    accounts: new DynamoDbAccountStore(db, configTable),
    store: new DynamoDbPersonData(db, leadsTable, keyring),
    ...(daySeconds !== undefined && { daySeconds }),
    ...(now && { now }),
    ...(remainingMs && { remainingMs }),
  });

/** What the deployed function is given by Lambda: only its remaining time is read. */
export interface SweepContext {
  getRemainingTimeInMillis(): number;
}

/**
 * The scheduled function: one sweep within the invocation's time, one log line of counts (ids and
 * counts only, never a person's data). An incomplete run is not a failure: tomorrow's goes on.
 */
export const retentionSweepHandler =
  (parts: Omit<RetentionSweepParts, 'remainingMs'>, write: (line: string) => void = (line) => void process.stdout.write(`${line}\n`)) =>
  async (_event: unknown, context?: SweepContext): Promise<SweepSummary> => {
    const summary = await runRetentionSweep({ ...parts, ...(context && { remainingMs: () => context.getRemainingTimeInMillis() }) });
    write(JSON.stringify({ level: 'info', message: 'retention sweep', ...summary }));
    return summary;
  };
