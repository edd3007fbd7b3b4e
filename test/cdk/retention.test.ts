/**
 * docs/reference.md "Backups and erasure" names every place of the stack where a person's data can wait
 * out of an erasure's reach, and for how long (docs/decisions/0010-nothing-waits-unerased.md). Its
 * table and the synthesized stack (the one that delivers to the CRM: every queue there is) must agree:
 * each row that names a stack path states that resource's own retention, and every queue is named.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { DEAD_LETTER_RETENTION } from '../../lib/constructs/lead-events.ts';
import { REPLAY_QUEUE_RETENTION } from '../../lib/constructs/lead-replays.ts';
import { defaultSettings } from '../../lib/settings.ts';
import { ERASURE_REPEAT_AFTER_HOURS, RECHECK_DELAY_SECONDS } from '../../shared/lead-replays.ts';
import { crmDeliveryContext, resources, synthesize } from './synth.ts';

const { template } = synthesize({ context: crmDeliveryContext });
const all = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;

const reference = readFileSync(path.join(import.meta.dirname, '../../docs/reference.md'), 'utf8');
const section = reference.slice(reference.indexOf('## Backups and erasure'));
const rows = section
  .split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| Where') && !line.startsWith('|---'))
  .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));

const SECONDS = { hour: 3600, day: 86_400 } as const;
/** The row's "How long": its first `N hour(s)` or `N day(s)`, in seconds. */
const durationOf = (text: string) => {
  const [, amount, unit] = /(\d+) (hour|day)s?\b/.exec(text)!;
  return Number(amount) * SECONDS[unit as keyof typeof SECONDS];
};
/** The stack paths a row names (`Events/DeliveryDeadLetterQueue`), as CDK makes logical ids of them. */
const pathsOf = (where: string) => [...where.matchAll(/`([A-Z][A-Za-z]*(?:\/[A-Za-z0-9]+)*)`/g)].map(([, named]) => named!);
const resourceAt = (stackPath: string) => {
  const ids = Object.keys(all).filter((id) => new RegExp(`^${stackPath.replace(/\//g, '')}([0-9A-F]{8})?$`).test(id));
  expect([stackPath, ids.length]).toEqual([stackPath, 1]);
  return { id: ids[0]!, ...all[ids[0]!]! };
};

/** How long each kind of resource keeps what it holds, as the template says. */
const retentionOf = ({ Type, Properties }: { Type: string; Properties: Record<string, any> }): number => {
  switch (Type) {
    case 'AWS::SQS::Queue':
      return Properties.MessageRetentionPeriod ?? 4 * SECONDS.day; // SQS's default
    case 'AWS::Events::Archive':
      return Properties.RetentionDays * SECONDS.day;
    case 'AWS::DynamoDB::Table':
    case 'AWS::DynamoDB::GlobalTable': {
      const pitr = Properties.PointInTimeRecoverySpecification ?? Properties.Replicas?.[0]?.PointInTimeRecoverySpecification;
      expect(pitr.PointInTimeRecoveryEnabled).toBe(true);
      return (pitr.RecoveryPeriodInDays ?? 35) * SECONDS.day; // DynamoDB's default
    }
    case 'AWS::Events::Rule':
      return Properties.Targets[0].RetryPolicy.MaximumEventAgeInSeconds;
    case 'AWS::Pipes::Pipe':
      return Properties.SourceParameters.DynamoDBStreamParameters.MaximumRecordAgeInSeconds;
    default:
      throw new Error(`no retention known for ${Type}`);
  }
};

describe('Backups and erasure (docs/reference.md) lists where a person can wait, and for how long', () => {
  test('its table has the rows to check', () => {
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const row of rows) expect(row).toHaveLength(4);
  });

  test.each(rows.filter(([where]) => pathsOf(where!).length > 0).map((row) => [row[0]!, row[2]!]))('%s: %s, as the stack keeps it', (where, howLong) => {
    for (const stackPath of pathsOf(where)) expect([stackPath, retentionOf(resourceAt(stackPath))]).toEqual([stackPath, durationOf(howLong)]);
  });

  test('names every queue of the stack', () => {
    const named = new Set(rows.flatMap(([where]) => pathsOf(where!)).map((stackPath) => resourceAt(stackPath).id));
    expect(Object.keys(resources(template, 'AWS::SQS::Queue')).filter((id) => !named.has(id))).toEqual([]);
  });

  test("states the constants it is built from: the dead-letter queues', the replay queue's, the archive's default, the re-check's and the repeat's", () => {
    expect(DEAD_LETTER_RETENTION.toDays()).toBe(14);
    expect(REPLAY_QUEUE_RETENTION.toDays()).toBe(4);
    expect(section).toContain(`${defaultSettings.eventArchiveDays} days (\`eventArchiveDays\`)`);
    expect(section).toContain(`re-check ${RECHECK_DELAY_SECONDS / 60} minutes after each post`);
    expect(section).toContain(`delivered again ${ERASURE_REPEAT_AFTER_HOURS} hours after it was published`);
  });
});
