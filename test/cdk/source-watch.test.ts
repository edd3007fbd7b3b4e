/**
 * The quiet-source watch in the stack (CONTRACT.md section 16): its function, the schedule that runs its
 * check, the stream mapping that feeds it the stored leads, its least-privilege grants, its settings and
 * the optional alarm.
 */
import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { CHANNEL_PARTITIONS } from '../../lib/constructs/source-watch.ts';
import { channelConnectionFields } from '../../shared/sources/registry.ts';
import { logicalIdOf, resources, synthesize } from './synth.ts';

const { template } = synthesize();
const functionId = logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp('quiet-source watch') });
const fn = resources(template, 'AWS::Lambda::Function')[functionId]!.Properties!;
const roleId = fn.Role['Fn::GetAtt'][0] as string;
const statementsOf = (t: typeof template, role: string) =>
  Object.values(resources(t, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties!.Roles as Array<{ Ref: string }>).some((r) => r.Ref === role))
    .flatMap((policy) => policy.Properties!.PolicyDocument.Statement as Array<Record<string, any>>);
const busId = Object.keys(resources(template, 'AWS::Events::EventBus'))[0]!;
/** The watch's schedule: the rule that invokes its function (the portal pulls have their own). */
const scheduleOf = (t: typeof template) =>
  Object.values(resources(t, 'AWS::Events::Rule')).filter((rule) => rule.Properties!.ScheduleExpression && /Quiet-source check/.test(rule.Properties!.Description));

describe('the quiet-source watch in the stack', () => {
  test('runs its check on an EventBridge schedule every silenceCheckMinutes (15 by default), invoking its function', () => {
    const [rule, ...others] = scheduleOf(template);
    expect(others).toEqual([]);
    expect(rule!.Properties).toMatchObject({ ScheduleExpression: 'rate(15 minutes)', State: 'ENABLED' });
    expect(rule!.Properties!.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] } })]);
    template.hasResourceProperties('AWS::Lambda::Permission', { FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] }, Principal: 'events.amazonaws.com' });
    expect(scheduleOf(synthesize({ props: { silenceCheckMinutes: 5 } }).template)[0]!.Properties!.ScheduleExpression).toBe('rate(5 minutes)');
  });

  test("counts from the Leads stream: new lead items only, from the stream's start, failures retried then dead-lettered", () => {
    const [mapping, ...others] = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping')).filter((m) => m.Properties!.FunctionName.Ref === functionId);
    expect(others).toEqual([]);
    expect(mapping!.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': ['LeadsTable', 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: 10,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [expect.stringMatching(/^SourceWatchDeadLetterQueue/), 'Arn'] } } },
    });
    expect(mapping!.Properties!.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { item_type: { S: ['lead'] } } } },
    ]);
  });

  test('gives its function the settings, the bus and each source’s connection field; the admin function the settings too', () => {
    expect(fn.Environment.Variables).toEqual({
      LEADS_TABLE_NAME: { Ref: 'LeadsTable' },
      CONFIG_TABLE_NAME: { Ref: 'ConfigTable' },
      LEAD_EVENTS_BUS_NAME: { Ref: busId },
      SILENCE_MIN_LEADS: '10',
      SILENCE_MIN_MINUTES: '360',
      SILENCE_QUIET_HOURS: '22:00-08:00',
      LEAD_CHANNEL_CONNECTION_FIELDS: JSON.stringify(channelConnectionFields),
    });
    expect(channelConnectionFields).toEqual({ '99acres': ['portal_login'], magicbricks: ['portal_login'], housing: ['portal_login'], social: ['meta_page_id', 'whatsapp_phone_number_id'], google_ads: ['google_form_id'], call: ['call_number'] });
    const admin = Object.values(resources(synthesize({ props: { silenceMinLeads: 3, silenceMinMinutes: 1, silenceQuietHours: 'none' } }).template, 'AWS::Lambda::Function')).find((f) =>
      String(f.Properties!.Description).includes('admin API'),
    )!;
    expect(admin.Properties!.Environment.Variables).toMatchObject({ SILENCE_MIN_LEADS: '3', SILENCE_MIN_MINUTES: '1', SILENCE_QUIET_HOURS: 'none' });
  });

  test('grants its function the watch’s partitions of the Leads table, PutEvents on the lead bus, the stream and its dead-letter queue, and nothing else', () => {
    const statements = statementsOf(template, roleId);
    const table = statements.filter((s) => [s.Action].flat().some((a: string) => a.startsWith('dynamodb:') && !/Stream|GetRecords|GetShardIterator/.test(a)) && JSON.stringify(s.Resource).includes('LeadsTable'));
    expect(table).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
        Resource: { 'Fn::GetAtt': ['LeadsTable', 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': CHANNEL_PARTITIONS } },
      },
    ]);
    // An account's quiet hours: its Config partition only.
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: 'dynamodb:Query',
      Resource: { 'Fn::GetAtt': ['ConfigTable', 'Arn'] },
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#*'] } },
    });
    expect(statements).toContainEqual({ Effect: 'Allow', Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } });
    expect(statements).toContainEqual({ Effect: 'Allow', Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], Resource: { 'Fn::GetAtt': ['LeadsTable', 'StreamArn'] } });
    expect(statements).toContainEqual({ Effect: 'Allow', Action: 'dynamodb:ListStreams', Resource: '*' });
    expect(statements).toContainEqual({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [expect.stringMatching(/^SourceWatchDeadLetterQueue/), 'Arn'] } });
    const actions = statements.flatMap((s) => [s.Action].flat()).sort();
    expect(actions).toEqual(
      [
        'dynamodb:DescribeStream', 'dynamodb:GetItem', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:Query',
        'dynamodb:UpdateItem', 'events:PutEvents', 'logs:CreateLogStream', 'logs:PutLogEvents', 'sqs:SendMessage',
      ].sort(),
    );
  });

  test('alarms on silent channels only with silenceAlarm', () => {
    const silentAlarms = (t: typeof template) => Object.values(resources(t, 'AWS::CloudWatch::Alarm')).filter((a) => a.Properties!.MetricName === 'SilentChannels');
    expect(silentAlarms(template)).toEqual([]);
    const [alarm] = silentAlarms(synthesize({ props: { silenceAlarm: true } }).template);
    expect(alarm!.Properties).toMatchObject({ Namespace: 'LeadIntake', Dimensions: [{ Name: 'Service', Value: 'lead-intake' }], Statistic: 'Maximum', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    expect(silentAlarms(synthesize({ context: { silenceAlarm: 'true' } }).template)).toHaveLength(1);
  });

  test('refuses settings out of their bounds at synth', () => {
    expect(() => synthesize({ props: { silenceQuietHours: '22-08' } })).toThrow(/silenceQuietHours must be HH:MM-HH:MM/);
    expect(() => synthesize({ props: { silenceCheckMinutes: 0 } })).toThrow(/silenceCheckMinutes must be an integer from 1 to 1440/);
    expect(() => synthesize({ props: { silenceMinLeads: 1 } })).toThrow(/silenceMinLeads must be an integer from 2/);
    expect(() => synthesize({ context: { silenceAlarm: 'yes' } })).toThrow(/silenceAlarm must be true or false/);
  });
});
