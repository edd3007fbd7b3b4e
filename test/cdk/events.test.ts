import { describe, expect, test } from '@jest/globals';
import { leadCreatedEvent } from '../../lib/constructs/lead-events.ts';
import { logicalIdOf, resources, synthesize } from './synth.ts';

const { template } = synthesize();
const pipes = Object.values(resources(template, 'AWS::Pipes::Pipe')).map((p) => p.Properties!);
const busId = logicalIdOf(template, 'AWS::Events::EventBus');
// The Lead Created events' dead-letter queue (the Meta leadgen queues are test/cdk/meta.test.ts's).
const queueId = Object.keys(resources(template, 'AWS::SQS::Queue')).find((id) => id.startsWith('Events'))!;

/** A DynamoDB stream record of a stored lead, as the pipe receives it. */
function insertOf(image: Record<string, unknown>, eventName = 'INSERT') {
  return { eventName, eventSource: 'aws:dynamodb', dynamodb: { Keys: {}, NewImage: image, StreamViewType: 'NEW_IMAGE' } };
}
const lead = (parent: unknown) => ({
  pk: { S: 'LEAD#acc-demo' }, sk: { S: 'LEAD#01J0000000' }, item_type: { S: 'lead' }, account_id: { S: 'acc-demo' },
  id: { S: '01J0000000' }, projectID: { S: 'PRJ-1' }, campaignID: { S: 'CMP-1' }, source: { S: 'website' },
  sub_source: { S: 'Skyline landing page' }, is_repeated: { BOOL: parent !== undefined }, created_at: { S: '2025-01-01T00:00:00.000Z' },
  parent_lead_id: parent ?? { NULL: true },
});
const claim = { pk: { S: 'CLAIM' }, sk: { S: 'x' }, item_type: { S: 'mobile_claim' }, parent_lead_id: { NULL: true } };

/** The subset of EventBridge's pattern matching the pipes use: value lists and `exists`. */
function matches(pattern: unknown, event: unknown): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((p) => (typeof p === 'object' && p !== null && 'exists' in p ? (event !== undefined) === p.exists : event === p));
  }
  return Object.entries(pattern as object).every(([key, sub]) => matches(sub, (event as Record<string, unknown> | undefined)?.[key]));
}
const pipesFor = (record: unknown) => pipes.filter((p) => matches(JSON.parse(p.SourceParameters.FilterCriteria.Filters[0].Pattern), record));

/** What EventBridge Pipes does with the input template: each <$.path> replaced by the value found there. */
function render(inputTemplate: string, record: unknown): unknown {
  const text = inputTemplate.replace(/<\$\.([^>]+)>/g, (_m, path: string) => {
    const value = path.split('.').reduce<any>((v, k) => v?.[k], record);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
  return JSON.parse(text);
}

describe('Lead Created events', () => {
  test('go to an event bus of the stack, with their own source and detail type', () => {
    expect(pipes).toHaveLength(2);
    for (const pipe of pipes) {
      expect(pipe.Target).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
      expect(pipe.TargetParameters.EventBridgeEventBusParameters).toEqual({ Source: 'crm.lead-intake', DetailType: 'Lead Created' });
    }
    expect(leadCreatedEvent).toEqual({ source: 'crm.lead-intake', detailType: 'Lead Created' });
    template.hasOutput('EventBusName', { Value: { Ref: busId } });
  });

  test('come from the Leads table stream, not from the request path', () => {
    for (const pipe of pipes) {
      expect(pipe.Source).toEqual({ 'Fn::GetAtt': ['LeadsTable', 'StreamArn'] });
      expect(pipe.SourceParameters.DynamoDBStreamParameters.StartingPosition).toBe('TRIM_HORIZON');
    }
    for (const fn of Object.values(resources(template, 'AWS::Lambda::Function'))) {
      expect(JSON.stringify(fn)).not.toMatch(new RegExp(busId));
    }
  });

  test('are published exactly once for every new lead, whatever its parent', () => {
    expect(pipesFor(insertOf(lead(undefined)))).toHaveLength(1);
    expect(pipesFor(insertOf(lead({ S: '01HPARENT' })))).toHaveLength(1);
    expect(pipesFor(insertOf(lead({ S: '01HPARENT' })))[0]).not.toBe(pipesFor(insertOf(lead(undefined)))[0]);
  });

  test('are not published for mobile claims, nor for modified or removed leads', () => {
    expect(pipesFor(insertOf(claim))).toHaveLength(0);
    expect(pipesFor(insertOf(lead(undefined), 'MODIFY'))).toHaveLength(0);
    expect(pipesFor(insertOf(lead(undefined), 'REMOVE'))).toHaveLength(0);
  });

  test('carry the account, project, campaign, lead id, source, is_repeated and parent_lead_id as plain JSON', () => {
    const original = insertOf(lead(undefined));
    expect(render(pipesFor(original)[0]!.TargetParameters.InputTemplate, original)).toEqual({
      account_id: 'acc-demo', lead_id: '01J0000000', projectID: 'PRJ-1', campaignID: 'CMP-1', source: 'website',
      is_repeated: false, parent_lead_id: null, created_at: '2025-01-01T00:00:00.000Z',
    });
    const merged = insertOf(lead({ S: '01HPARENT' }));
    expect(render(pipesFor(merged)[0]!.TargetParameters.InputTemplate, merged)).toMatchObject({ is_repeated: true, parent_lead_id: '01HPARENT' });
  });

  test('that cannot be delivered after retries land in an encrypted, SSL-only dead-letter queue', () => {
    for (const pipe of pipes) {
      expect(pipe.SourceParameters.DynamoDBStreamParameters).toMatchObject({
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
        MaximumRetryAttempts: 10,
      });
    }
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: { Statement: [{ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }] },
    });
  });

  test('are moved by a role that may only read the stream, put events on the bus, dead-letter and log errors', () => {
    const roleId = pipes[0]!.RoleArn['Fn::GetAtt'][0];
    expect(pipes[1]!.RoleArn['Fn::GetAtt'][0]).toBe(roleId);
    const role = resources(template, 'AWS::IAM::Role')[roleId]!;
    expect(role.Properties!.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: 'pipes.amazonaws.com' });
    const statements = Object.values(resources(template, 'AWS::IAM::Policy'))
      .filter((p) => p.Properties!.Roles.some((r: { Ref: string }) => r.Ref === roleId))
      .flatMap((p) => p.Properties!.PolicyDocument.Statement);
    expect(statements).toEqual([
      { Effect: 'Allow', Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'], Resource: { 'Fn::GetAtt': ['LeadsTable', 'StreamArn'] } },
      { Effect: 'Allow', Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } },
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [expect.stringMatching(/^EventsPipeLogs/), 'Arn'] } },
    ]);
  });

  test('failures are logged at ERROR level without the lead data', () => {
    for (const pipe of pipes) {
      expect(pipe.LogConfiguration.Level).toBe('ERROR');
      expect(pipe.LogConfiguration.IncludeExecutionData).toBeUndefined();
    }
  });
});
