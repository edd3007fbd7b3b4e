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
import { Match } from 'aws-cdk-lib/assertions';
import { RETENTION_CONFIG_PARTITIONS, RETENTION_LEAD_PARTITIONS } from '../../lib/constructs/retention-sweep.ts';
import { crmDeliveryContext, logicalIdOf, resources, synthesize } from './synth.ts';

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

describe('the retention sweep in the stack (CONTRACT.md section 18)', () => {
  const functionId = logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp('retention sweep') });
  const fn = resources(template, 'AWS::Lambda::Function')[functionId]!.Properties!;
  const roleId = fn.Role['Fn::GetAtt'][0] as string;
  const statements = Object.values(resources(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties!.Roles as Array<{ Ref: string }>).some((r) => r.Ref === roleId))
    .flatMap((policy) => policy.Properties!.PolicyDocument.Statement as Array<Record<string, any>>);
  const sweepRules = (t: typeof template) =>
    Object.values(resources(t, 'AWS::Events::Rule')).filter((rule) => JSON.stringify(rule.Properties!.Targets ?? []).includes(functionId));

  test('runs daily on an EventBridge schedule at retentionSweepHourUtc (21 by default), invoking its function with retries', () => {
    const [rule, ...others] = sweepRules(template);
    expect(others).toEqual([]);
    expect(rule!.Properties).toMatchObject({ ScheduleExpression: 'cron(0 21 * * ? *)', State: 'ENABLED' });
    expect(rule!.Properties!.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] }, RetryPolicy: expect.objectContaining({ MaximumRetryAttempts: 2 }) })]);
    template.hasResourceProperties('AWS::Lambda::Permission', { FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] }, Principal: 'events.amazonaws.com' });
    const other = synthesize({ props: { retentionSweepHourUtc: 3 } }).template;
    const otherId = logicalIdOf(other, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp('retention sweep') });
    const [moved] = Object.values(resources(other, 'AWS::Events::Rule')).filter((rule) => JSON.stringify(rule.Properties!.Targets ?? []).includes(otherId));
    expect(moved!.Properties!.ScheduleExpression).toBe('cron(0 3 * * ? *)');
  });

  test('gives its function the tables and the lookup key, and a run bounded in time (15 minutes)', () => {
    expect(fn.Timeout).toBe(900);
    expect(fn.Environment.Variables).toEqual({
      LEADS_TABLE_NAME: { Ref: 'LeadsTable' },
      CONFIG_TABLE_NAME: { Ref: 'ConfigTable' },
      PERSON_KEY_SECRET_ARN: expect.anything(),
    });
  });

  test("grants its function an erasure's actions on the partitions it touches, the by_age index, the lookup key, and nothing else", () => {
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: 'dynamodb:Query',
      Resource: { 'Fn::GetAtt': ['ConfigTable', 'Arn'] },
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': RETENTION_CONFIG_PARTITIONS } },
    });
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'],
      Resource: { 'Fn::GetAtt': ['LeadsTable', 'Arn'] },
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': RETENTION_LEAD_PARTITIONS } },
    });
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: 'dynamodb:Query',
      Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['LeadsTable', 'Arn'] }, '/index/by_age']] },
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['AGE#*'] } },
    });
    const actions = statements.flatMap((s) => [s.Action].flat()).sort();
    expect(actions).toEqual(
      ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:Query', 'dynamodb:Query', 'logs:CreateLogStream', 'logs:PutLogEvents', 'secretsmanager:GetSecretValue'].sort(),
    );
  });

  test('alarms on any error of its function', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  test('finds aged-out leads by an index of their age, keys only, never a scan', () => {
    const leads = resources(template, 'AWS::DynamoDB::Table').LeadsTable!.Properties!;
    expect(leads.GlobalSecondaryIndexes).toContainEqual({
      IndexName: 'by_age',
      KeySchema: [
        { AttributeName: 'age_pk', KeyType: 'HASH' },
        { AttributeName: 'age_at', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    });
  });

  test("lets the Lead Erased enrichment read an erasure's reason, and nothing else of the table", () => {
    const enrichmentId = logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp('Lead Created events, whole leads') });
    const enrichmentRole = resources(template, 'AWS::Lambda::Function')[enrichmentId]!.Properties!.Role['Fn::GetAtt'][0] as string;
    const own = Object.values(resources(template, 'AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties!.Roles as Array<{ Ref: string }>).some((r) => r.Ref === enrichmentRole))
      .flatMap((policy) => policy.Properties!.PolicyDocument.Statement as Array<Record<string, any>>)
      .filter((s) => [s.Action].flat().some((a: string) => a.startsWith('dynamodb:')));
    expect(own).toEqual([
      { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: { 'Fn::GetAtt': ['LeadsTable', 'Arn'] }, Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ERASED#*'] } } },
    ]);
  });
});
