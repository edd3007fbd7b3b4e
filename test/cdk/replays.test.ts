/**
 * Replays of the event archive reach the CRM only through a path that skips erased leads (CONTRACT.md
 * section 14; lib/constructs/lead-replays.ts): the live delivery rule takes no replayed event, and the
 * replay rule -> queue -> pipe (the filter function as enrichment) -> the CRM's API destination.
 */
import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { DELIVERY_MAX_EVENT_AGE, liveLeadEvents } from '../../lib/constructs/lead-events.ts';
import { REPLAY_MAX_RECEIVES, REPLAY_RETRY_INTERVAL, replayedLeadEvents } from '../../lib/constructs/lead-replays.ts';
import { ERASURE_REPEAT_AFTER_HOURS, RECHECK_DELAY_SECONDS } from '../../shared/lead-replays.ts';
import { crmDeliveryContext, logicalIdOf, resources, synthesize } from './synth.ts';

const { template } = synthesize({ context: crmDeliveryContext });
const { template: notDelivering } = synthesize();

const rules = Object.entries(resources(template, 'AWS::Events::Rule'));
const [, liveRule] = rules.find(([, r]) => r.Properties!.Description.startsWith('Every Lead Created'))!;
const [replayRuleId, replayRule] = rules.find(([, r]) => r.Properties!.Description.startsWith('Replayed'))!;
const [replayPipeId, replayPipe] = Object.entries(resources(template, 'AWS::Pipes::Pipe')).find(([, p]) => p.Properties!.Description.startsWith('Replayed lead events'))!;
const queueId = replayPipe.Properties!.Source['Fn::GetAtt'][0] as string;
const filterId = logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp('replayed lead events to the CRM, without erased leads') });
const destinationId = logicalIdOf(template, 'AWS::Events::ApiDestination');
const busId = logicalIdOf(template, 'AWS::Events::EventBus');

/** The part of EventBridge's pattern matching these rules use: lists of values, and `exists`. */
function matches(pattern: Record<string, unknown>, event: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([key, values]) =>
    (values as unknown[]).some((value) => (typeof value === 'object' && value !== null && 'exists' in value ? (key in event) === (value as { exists: boolean }).exists : event[key] === value)),
  );
}
const published = { id: 'e-1', source: 'crm.lead-intake', 'detail-type': 'Lead Created', time: '2026-11-25T10:00:00Z', detail: {} };
const replayed = { ...published, 'replay-name': 'lead-events-20261120100000-0a1b2c3d' };

/** Every statement of the policies attached to a role. */
const statementsOf = (roleId: string) =>
  Object.values(resources(template, 'AWS::IAM::Policy'))
    .filter((p) => p.Properties!.Roles.some((r: { Ref: string }) => r.Ref === roleId))
    .flatMap((p) => p.Properties!.PolicyDocument.Statement);

describe('The live CRM delivery', () => {
  test('takes every published Lead Created and Lead Erased event, and no replayed one (EventBridge marks those with replay-name)', () => {
    expect(liveRule.Properties!.EventPattern).toEqual({ source: ['crm.lead-intake'], 'detail-type': ['Lead Created', 'Lead Erased', 'Source Silent', 'Source Resumed', 'Portal Failing', 'Portal Recovered'], 'replay-name': [{ exists: false }] });
    expect(matches(liveRule.Properties!.EventPattern, published)).toBe(true);
    expect(matches(liveRule.Properties!.EventPattern, { ...published, 'detail-type': 'Lead Erased' })).toBe(true);
    expect(matches(liveRule.Properties!.EventPattern, replayed)).toBe(false);
    expect(liveLeadEvents).toMatchObject({ 'replay-name': [{ exists: false }] });
  });
});

describe('Replays to the CRM', () => {
  test('arrive on a rule of their own, which takes replayed events only, and which replay-events names (stack output CrmReplayRuleArn)', () => {
    const pattern = replayRule.Properties!.EventPattern;
    expect(pattern).toEqual({ source: ['crm.lead-intake'], 'detail-type': ['Lead Created', 'Lead Erased', 'Source Silent', 'Source Resumed', 'Portal Failing', 'Portal Recovered'], 'replay-name': [{ exists: true }] });
    expect(replayedLeadEvents).toMatchObject({ 'replay-name': [{ exists: true }] });
    expect(matches(pattern, replayed)).toBe(true);
    expect(matches(pattern, published)).toBe(false);
    expect(replayRule.Properties!.EventBusName).toEqual({ Ref: busId });
    template.hasOutput('CrmReplayRuleArn', { Value: { 'Fn::GetAtt': [replayRuleId, 'Arn'] } });
  });

  test('are queued in the shape the CRM receives, {id, source, detail-type, time, detail}, as the live delivery sends it', () => {
    const [target] = replayRule.Properties!.Targets;
    expect(target.Arn).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    const live = liveRule.Properties!.Targets[0].InputTransformer;
    expect(target.InputTransformer).toEqual(live);
    // Only this rule may send to the queue.
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Allow', Action: Match.arrayWith(['sqs:SendMessage']), Principal: { Service: 'events.amazonaws.com' }, Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [replayRuleId, 'Arn'] } } } }),
        ]),
      },
    });
  });

  test('go from the queue through the filter function (the pipe enrichment) to the same API destination as the live delivery, one event per execution', () => {
    const pipe = replayPipe.Properties!;
    expect(pipe.Source).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    // One event each: a lead is checked right before its own post, not before a batch's.
    expect(pipe.SourceParameters).toEqual({ SqsQueueParameters: { BatchSize: 1 } });
    expect(pipe.Enrichment).toEqual({ 'Fn::GetAtt': [filterId, 'Arn'] });
    expect(pipe.Target).toEqual({ 'Fn::GetAtt': [destinationId, 'Arn'] });
    expect(liveRule.Properties!.Targets[0].Arn).toEqual({ 'Fn::GetAtt': [destinationId, 'Arn'] });
    // No input template: the pipe posts each event the filter returns, as it is.
    expect(pipe.TargetParameters).toBeUndefined();
    expect(pipe.LogConfiguration.Level).toBe('ERROR');
    expect(pipe.LogConfiguration.IncludeExecutionData).toBeUndefined();
  });

  test('that fail are received again every 5 minutes for 24 hours, then kept in an encrypted dead-letter queue that raises an alarm, as does a failing pipe', () => {
    const queue = resources(template, 'AWS::SQS::Queue')[queueId]!.Properties!;
    expect(REPLAY_RETRY_INTERVAL.toSeconds() * REPLAY_MAX_RECEIVES).toBe(24 * 60 * 60);
    expect(queue).toMatchObject({ SqsManagedSseEnabled: true, VisibilityTimeout: 300, RedrivePolicy: { maxReceiveCount: 288 } });
    const deadLetterId = queue.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
    expect(resources(template, 'AWS::SQS::Queue')[deadLetterId]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 60 * 60 });
    for (const id of [queueId, deadLetterId]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
      });
    }
    const alarms = Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties!);
    expect(alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && a.Dimensions[0].Value['Fn::GetAtt'][0] === deadLetterId)).toHaveLength(1);
    expect(alarms.filter((a) => a.MetricName === 'ExecutionFailed' && a.Dimensions[0].Value.Ref === replayPipeId)).toHaveLength(1);
    expect(alarms.filter((a) => a.MetricName === 'Errors' && a.Dimensions[0].Value.Ref === filterId)).toHaveLength(1);
  });

  test("are moved by a role of their own that may only consume the queue, invoke the filter, invoke the CRM's API destination and write the pipes' error log", () => {
    const roleId = replayPipe.Properties!.RoleArn['Fn::GetAtt'][0];
    expect(resources(template, 'AWS::IAM::Role')[roleId]!.Properties!.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: 'pipes.amazonaws.com' });
    expect(statementsOf(roleId)).toEqual([
      { Effect: 'Allow', Action: ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'], Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } },
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [filterId, 'Arn'] } },
      { Effect: 'Allow', Action: 'events:InvokeApiDestination', Resource: { 'Fn::GetAtt': [destinationId, 'Arn'] } },
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [expect.stringMatching(/^EventsPipeLogs/), 'Arn'] } },
    ]);
    // The stream pipes' role gains nothing from it.
    const streamPipeRole = Object.values(resources(template, 'AWS::Pipes::Pipe')).find((p) => p.Properties!.Description.startsWith('Lead Created events'))!.Properties!.RoleArn['Fn::GetAtt'][0];
    expect(streamPipeRole).not.toBe(roleId);
    expect(JSON.stringify(statementsOf(streamPipeRole))).not.toMatch(/InvokeApiDestination|sqs:ReceiveMessage/);
  });

  test("are filtered by a function that may only GetItem lead items and erasures' reasons of the Leads table, and knows only that table", () => {
    const fn = resources(template, 'AWS::Lambda::Function')[filterId]!.Properties!;
    expect(fn.Environment.Variables.LEADS_TABLE_NAME).toEqual({ Ref: 'LeadsTable' });
    expect(Object.keys(fn.Environment.Variables).filter((name) => /TABLE|SECRET|KEY/.test(name))).toEqual(['LEADS_TABLE_NAME']);
    const dynamodbStatements = statementsOf(fn.Role['Fn::GetAtt'][0]).filter((s) => JSON.stringify(s.Action).includes('dynamodb:'));
    expect(dynamodbStatements).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: { 'Fn::GetAtt': ['LeadsTable', 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LEADS#*', 'ERASED#*'] } },
      },
    ]);
  });

  test("leave their re-checks on the replay queue: the filter may send to it, and nothing else of SQS", () => {
    const fn = resources(template, 'AWS::Lambda::Function')[filterId]!.Properties!;
    expect(fn.Environment.Variables.LEAD_REPLAY_QUEUE_URL).toEqual({ Ref: queueId });
    const sqsStatements = statementsOf(fn.Role['Fn::GetAtt'][0]).filter((s) => JSON.stringify(s.Action).includes('sqs:'));
    expect(sqsStatements).toEqual([{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } }]);
    // Past the pipe's 5-minute visibility timeout: a post that followed the check has ended by then.
    expect(RECHECK_DELAY_SECONDS).toBeGreaterThan(resources(template, 'AWS::SQS::Queue')[queueId]!.Properties!.VisibilityTimeout);
    expect(RECHECK_DELAY_SECONDS).toBeLessThanOrEqual(900); // SQS's longest message timer
  });

  test('the live Lead Erased events are queued again, wrapped as repeats, to be delivered once no Lead Created of their lead can still be on its way', () => {
    const [repeatsRuleId, repeatsRule] = rules.find(([, r]) => r.Properties!.Description.startsWith('Each live Lead Erased'))!;
    const pattern = repeatsRule.Properties!.EventPattern;
    expect(pattern).toEqual({ source: ['crm.lead-intake'], 'detail-type': ['Lead Erased'], 'replay-name': [{ exists: false }] });
    expect(matches(pattern, { ...published, 'detail-type': 'Lead Erased' })).toBe(true);
    expect(matches(pattern, published)).toBe(false);
    expect(matches(pattern, { ...replayed, 'detail-type': 'Lead Erased' })).toBe(false);
    const [target] = repeatsRule.Properties!.Targets;
    expect(target.Arn).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    const live = liveRule.Properties!.Targets[0].InputTransformer;
    expect(target.InputTransformer.InputPathsMap).toEqual(live.InputPathsMap);
    expect(JSON.parse(target.InputTransformer.InputTemplate.replace(/<[^>]+>/g, '0'))).toEqual({ repeat: JSON.parse(live.InputTemplate.replace(/<[^>]+>/g, '0')) });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Allow', Action: Match.arrayWith(['sqs:SendMessage']), Principal: { Service: 'events.amazonaws.com' }, Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [repeatsRuleId, 'Arn'] } } } }),
        ]),
      },
    });
    // Held past the live delivery's retries and the oldest stream record the Lead Created pipe still publishes.
    const streamPipe = Object.values(resources(template, 'AWS::Pipes::Pipe')).find((p) => p.Properties!.Description.startsWith('Lead Created events'))!;
    const recordAgeSeconds = streamPipe.Properties!.SourceParameters.DynamoDBStreamParameters.MaximumRecordAgeInSeconds;
    expect(ERASURE_REPEAT_AFTER_HOURS * 3600).toBeGreaterThanOrEqual(DELIVERY_MAX_EVENT_AGE.toSeconds() + recordAgeSeconds);
    expect(liveRule.Properties!.Targets[0].RetryPolicy.MaximumEventAgeInSeconds).toBe(DELIVERY_MAX_EVENT_AGE.toSeconds());
  });

  test('have no path of their own unless the stack delivers to the CRM', () => {
    expect(Object.values(resources(notDelivering, 'AWS::Pipes::Pipe')).filter((p) => p.Properties!.Source['Fn::GetAtt']?.[1] !== 'StreamArn')).toEqual([]);
    expect(Object.values(resources(notDelivering, 'AWS::Lambda::Function')).filter((f) => /replayed lead events/.test(f.Properties!.Description))).toEqual([]);
    expect(Object.keys(notDelivering.toJSON().Outputs)).not.toContain('CrmReplayRuleArn');
  });
});
