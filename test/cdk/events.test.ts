import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { leadCreatedEvent, leadCreatedFilter, leadErasedEvent, leadErasedFilters } from '../../lib/constructs/lead-events.ts';
import { handler as enrich } from '../../functions/lead-events/handler.ts';
import { logicalIdOf, resources, synthesize } from './synth.ts';

const { template } = synthesize();
const crm = { crmWebhookUrl: 'https://crm.example/hooks/leads', crmWebhookAuthorizationSecret: 'lead-intake/crm-webhook' };
const delivering = synthesize({ context: { ...crm, eventArchiveDays: '90' } }).template;
const allPipes = Object.values(resources(template, 'AWS::Pipes::Pipe')).map((p) => p.Properties!);
// The Lead Created pipe first; the Lead Erased pipe (CONTRACT.md section 12) has tests of its own below.
const pipes = allPipes.filter((p) => p.TargetParameters.EventBridgeEventBusParameters.DetailType === 'Lead Created');
const erasedPipes = allPipes.filter((p) => p.TargetParameters.EventBridgeEventBusParameters.DetailType === 'Lead Erased');
const busId = logicalIdOf(template, 'AWS::Events::EventBus');
// The Lead Created events' dead-letter queue (the Meta leadgen queues are test/cdk/meta.test.ts's).
const queueId = Object.keys(resources(template, 'AWS::SQS::Queue')).find((id) => id.startsWith('Events'))!;
const enrichmentId = logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp('Lead Created events') });

/** A DynamoDB stream record, as the pipe receives it. */
function recordOf(image: Record<string, unknown>, eventName = 'INSERT') {
  return { eventName, eventSource: 'aws:dynamodb', dynamodb: { Keys: {}, NewImage: image, StreamViewType: 'NEW_IMAGE' } };
}
const leadItem = { pk: { S: 'LEADS#acc-demo#PRJ-1' }, sk: { S: 'LEAD#01J0000000' }, item_type: { S: 'lead' }, account_id: { S: 'acc-demo' }, id: { S: '01J0000000' } };

/** The subset of EventBridge's pattern matching the pipes use: lists of values, and prefixes. */
function matches(pattern: unknown, event: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((p) => (typeof p === 'object' && p !== null && 'prefix' in p ? typeof event === 'string' && event.startsWith(p.prefix) : p === event));
  return Object.entries(pattern as object).every(([key, sub]) => matches(sub, (event as Record<string, unknown> | undefined)?.[key]));
}
const filterOf = (pipe: Record<string, any>) => JSON.parse(pipe.SourceParameters.FilterCriteria.Filters[0].Pattern);

describe('Lead Created events', () => {
  test('go from one pipe, through the enrichment function, to an event bus of the stack, with their own source and detail type', () => {
    expect(pipes).toHaveLength(1);
    const [pipe] = pipes;
    expect(pipe!.Enrichment).toEqual({ 'Fn::GetAtt': [enrichmentId, 'Arn'] });
    expect(pipe!.Target).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
    expect(pipe!.TargetParameters).toEqual({ EventBridgeEventBusParameters: { Source: 'crm.lead-intake', DetailType: 'Lead Created' } });
    expect(leadCreatedEvent).toEqual({ source: 'crm.lead-intake', detailType: 'Lead Created' });
    template.hasOutput('EventBusName', { Value: { Ref: busId } });
    template.hasOutput('EventBusArn', { Value: { 'Fn::GetAtt': [busId, 'Arn'] } });
  });

  test('come from the Leads table stream, not from the request path (only the enrichment and the quiet-source watch know the bus)', () => {
    expect(pipes[0]!.Source).toEqual({ 'Fn::GetAtt': ['LeadsTable', 'StreamArn'] });
    expect(pipes[0]!.SourceParameters.DynamoDBStreamParameters.StartingPosition).toBe('TRIM_HORIZON');
    for (const [id, fn] of Object.entries(resources(template, 'AWS::Lambda::Function'))) {
      // The admin API knows it too: a pull of a portal login asked for there may send Portal Failing or Portal Recovered (CONTRACT.md section 17), never a lead's event.
      // And the portal pulls, for the same two events of a scheduled pull.
      const knowsTheBus = id === enrichmentId || ['quiet-source watch', 'admin API', 'portal pulls, each queued'].some((what) => String(fn.Properties!.Description).includes(what));
      if (!knowsTheBus) expect(JSON.stringify(fn)).not.toMatch(new RegExp(busId));
    }
  });

  test('are taken only for new lead items: not mobile claims, idempotency keys, rejections, nor changed or removed leads', () => {
    const filter = filterOf(pipes[0]!);
    expect(filter).toEqual(leadCreatedFilter);
    expect(matches(filter, recordOf(leadItem))).toBe(true);
    for (const itemType of ['mobile_claim', 'idempotency_key', 'rejection']) {
      expect(matches(filter, recordOf({ ...leadItem, item_type: { S: itemType } }))).toBe(false);
    }
    expect(matches(filter, recordOf(leadItem, 'MODIFY'))).toBe(false);
    expect(matches(filter, recordOf(leadItem, 'REMOVE'))).toBe(false);
  });

  test('that cannot be published after retries land in an encrypted, SSL-only dead-letter queue', () => {
    expect(pipes[0]!.SourceParameters.DynamoDBStreamParameters).toMatchObject({
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
      MaximumRetryAttempts: 10,
      OnPartialBatchItemFailure: 'AUTOMATIC_BISECT',
    });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: { Statement: [{ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }] },
    });
  });

  test('are moved by a role that may only read the stream, invoke the enrichment function, put events on the bus, dead-letter and log errors', () => {
    const roleId = pipes[0]!.RoleArn['Fn::GetAtt'][0];
    const role = resources(template, 'AWS::IAM::Role')[roleId]!;
    expect(role.Properties!.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: 'pipes.amazonaws.com' });
    const statements = Object.values(resources(template, 'AWS::IAM::Policy'))
      .filter((p) => p.Properties!.Roles.some((r: { Ref: string }) => r.Ref === roleId))
      .flatMap((p) => p.Properties!.PolicyDocument.Statement);
    expect(statements).toEqual([
      { Effect: 'Allow', Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], Resource: { 'Fn::GetAtt': ['LeadsTable', 'StreamArn'] } },
      // ListStreams has no resource type: IAM checks it on "*" only.
      { Effect: 'Allow', Action: 'dynamodb:ListStreams', Resource: '*' },
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [enrichmentId, 'Arn'] } },
      { Effect: 'Allow', Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } },
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [expect.stringMatching(/^EventsPipeLogs/), 'Arn'] } },
    ]);
  });

  test('failures are logged at ERROR level without the lead data', () => {
    expect(pipes[0]!.LogConfiguration.Level).toBe('ERROR');
    expect(pipes[0]!.LogConfiguration.IncludeExecutionData).toBeUndefined();
  });
});

describe('The Lead Created archive', () => {
  test('keeps every Lead Created event of the bus 30 days by default, or as long as the setting says', () => {
    template.hasResourceProperties('AWS::Events::Archive', {
      SourceArn: { 'Fn::GetAtt': [busId, 'Arn'] },
      EventPattern: { source: ['crm.lead-intake'], 'detail-type': ['Lead Created', 'Lead Erased', 'Source Silent', 'Source Resumed', 'Portal Failing', 'Portal Recovered'] },
      RetentionDays: 30,
    });
    delivering.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 90 });
    template.hasOutput('EventArchiveArn', {});
  });
});

describe('Delivery to the CRM endpoint', () => {
  test('is not set up unless the operator names the endpoint', () => {
    template.resourceCountIs('AWS::Events::ApiDestination', 0);
    template.resourceCountIs('AWS::Events::Connection', 0);
    // The only rules are schedules (the quiet-source watch's, the retention sweep's, the portal pulls'), on the default bus: none takes an event anywhere.
    const rules = Object.values(resources(template, 'AWS::Events::Rule'));
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) expect([rule.Properties!.EventBusName, rule.Properties!.EventPattern, rule.Properties!.ScheduleExpression]).toEqual([undefined, undefined, expect.stringMatching(/^(rate|cron)\(/)]);
  });

  test('goes through an API destination that POSTs to the CRM URL, rate-limited', () => {
    delivering.hasResourceProperties('AWS::Events::ApiDestination', {
      InvocationEndpoint: 'https://crm.example/hooks/leads',
      HttpMethod: 'POST',
      InvocationRateLimitPerSecond: 20,
    });
  });

  test('authorizes with a header whose value CloudFormation reads from Secrets Manager, never written in the template', () => {
    const connection = Object.values(resources(delivering, 'AWS::Events::Connection'))[0]!.Properties!;
    expect(connection.AuthorizationType).toBe('API_KEY');
    const { ApiKeyName, ApiKeyValue } = connection.AuthParameters.ApiKeyAuthParameters;
    expect(ApiKeyName).toBe('Authorization');
    expect(JSON.stringify(ApiKeyValue)).toContain('{{resolve:secretsmanager:');
    expect(JSON.stringify(ApiKeyValue)).toContain('lead-intake/crm-webhook');
  });

  test('sends each Lead Created event as {id, source, detail-type, time, detail}, retrying for 24 hours, then dead-letters it', () => {
    // The live delivery; replays go through the replay path (test/cdk/replays.test.ts).
    const rules = Object.values(resources(delivering, 'AWS::Events::Rule')).map((r) => r.Properties!).filter((r) => r.Description.startsWith('Every Lead Created'));
    expect(rules).toHaveLength(1);
    const [rule] = rules;
    expect(rule!.EventPattern).toEqual({ source: ['crm.lead-intake'], 'detail-type': ['Lead Created', 'Lead Erased', 'Source Silent', 'Source Resumed', 'Portal Failing', 'Portal Recovered'], 'replay-name': [{ exists: false }] });
    expect(rule!.EventBusName).toEqual({ Ref: logicalIdOf(delivering, 'AWS::Events::EventBus') });
    const [target] = rule!.Targets;
    expect(target.Arn).toEqual({ 'Fn::GetAtt': [logicalIdOf(delivering, 'AWS::Events::ApiDestination'), 'Arn'] });
    expect(target.RetryPolicy).toEqual({ MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 });
    const deliveryQueue = target.DeadLetterConfig.Arn['Fn::GetAtt'][0];
    expect(Object.keys(resources(delivering, 'AWS::SQS::Queue'))).toContain(deliveryQueue);
    expect(deliveryQueue).not.toBe(queueId);
    const { InputPathsMap, InputTemplate } = target.InputTransformer;
    expect(Object.values(InputPathsMap).sort()).toEqual(['$.detail', '$.detail-type', '$.id', '$.source', '$.time']);
    expect(Object.keys(JSON.parse(InputTemplate.replace(/<[^>]+>/g, '0')))).toEqual(['id', 'source', 'detail-type', 'time', 'detail']);
    delivering.hasOutput('CrmDeliveryRuleArn', {});
  });

  test('raises an alarm on any event given up, and lets EventBridge write to its dead-letter queue', () => {
    const queueId = Object.values(resources(delivering, 'AWS::Events::Rule')).find((r) => r.Properties!.Description.startsWith('Every Lead Created'))!.Properties!.Targets[0].DeadLetterConfig.Arn['Fn::GetAtt'][0];
    const alarms = Object.values(resources(delivering, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties!);
    expect(alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && a.Dimensions[0].Value['Fn::GetAtt'][0] === queueId)).toHaveLength(1);
    delivering.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Allow', Action: 'sqs:SendMessage', Principal: { Service: 'events.amazonaws.com' } })]),
      },
    });
  });

  test('refuses an endpoint that is not https, or one without its secret', () => {
    expect(() => synthesize({ context: { ...crm, crmWebhookUrl: 'http://crm.example/hooks' } })).toThrow(/https/);
    expect(() => synthesize({ context: { crmWebhookUrl: crm.crmWebhookUrl } })).toThrow(/crmWebhookAuthorizationSecret/);
  });
});

describe('Lead Erased events', () => {
  const removal = (pk: string, sk: string) => ({ eventName: 'REMOVE', eventSource: 'aws:dynamodb', dynamodb: { Keys: { pk: { S: pk }, sk: { S: sk } }, StreamViewType: 'NEW_IMAGE' } });
  const passes = (record: unknown) => leadErasedFilters.some((filter) => matches(filter, record));

  test('go from a second pipe on the same stream, through the same enrichment function, to the same bus, under their own detail type', () => {
    expect(erasedPipes).toHaveLength(1);
    const [pipe] = erasedPipes;
    expect(pipe!.Source).toEqual({ 'Fn::GetAtt': ['LeadsTable', 'StreamArn'] });
    expect(pipe!.Enrichment).toEqual({ 'Fn::GetAtt': [enrichmentId, 'Arn'] });
    expect(pipe!.Target).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
    expect(pipe!.TargetParameters).toEqual({ EventBridgeEventBusParameters: { Source: 'crm.lead-intake', DetailType: 'Lead Erased' } });
    expect(leadErasedEvent).toEqual({ source: 'crm.lead-intake', detailType: 'Lead Erased' });
    expect(pipe!.SourceParameters.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual(leadErasedFilters);
    expect(pipe!.SourceParameters.DynamoDBStreamParameters.DeadLetterConfig).toEqual(pipes[0]!.SourceParameters.DynamoDBStreamParameters.DeadLetterConfig);
  });

  test('are taken for removed lead items and changed lead items only, never for lookup items, claims or new leads', () => {
    expect(passes(removal('LEADS#acc-demo#PRJ-1', 'LEAD#01J0000000'))).toBe(true);
    expect(passes(recordOf(leadItem, 'MODIFY'))).toBe(true);
    expect(passes(removal('PERSON#acc-demo#ab12', 'LEAD#01J0000000'))).toBe(false);
    expect(passes(removal('LEADS#acc-demo#PRJ-1', 'MOBILE#9876543210'))).toBe(false);
    expect(passes(removal('IDEMPOTENCY#acc-demo#ab12', 'IDEMPOTENCY'))).toBe(false);
    expect(passes(recordOf(leadItem))).toBe(false);
  });

  test('carry the account and the lead id, and the fields erased from a lead that stays, and nothing about the person', async () => {
    const changed = recordOf({ ...leadItem, name: { S: 'Asha Verma' }, mobile_number: { S: '9876543210' }, erased_fields: { L: [{ S: 'alternate_number' }] } }, 'MODIFY');
    expect(await enrich([removal('LEADS#acc-demo#PRJ-1', 'LEAD#01J0000000'), changed, recordOf(leadItem, 'MODIFY')] as never)).toEqual([
      // Without a table to read the erasure's reason from, a request's (test/retention reads a retention's).
      { account_id: 'acc-demo', lead_id: '01J0000000', reason: 'request' },
      { account_id: 'acc-demo', lead_id: '01J0000000', fields: ['alternate_number'], reason: 'request' },
    ]);
  });
});
