import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { resources, synthesize } from './synth.ts';

const { template } = synthesize();
const json = JSON.stringify(template.toJSON());
const idOf = (type: string, prefix: string) => {
  const ids = Object.keys(resources(template, type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} ${prefix}*, found ${ids.length}`);
  return ids[0]!;
};
const webhookId = idOf('AWS::Lambda::Function', 'MetaLeadAdsWebhookFunction');
const workerId = idOf('AWS::Lambda::Function', 'MetaLeadAdsWorkerFunction');
const queueId = idOf('AWS::SQS::Queue', 'MetaLeadAdsLeadgenQueue');
const dlqId = idOf('AWS::SQS::Queue', 'MetaLeadAdsDeadLetterQueue');
const keyId = idOf('AWS::KMS::Key', 'MetaLeadAdsPageTokenKey');
const secretId = idOf('AWS::SecretsManager::Secret', 'MetaLeadAdsAppSecrets');
const fn = (id: string) => resources(template, 'AWS::Lambda::Function')[id]!.Properties!;

const statementsOf = (functionId: string) => {
  const roleId = fn(functionId).Role['Fn::GetAtt'][0];
  return Object.values(resources(template, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties!.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => p.Properties!.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
    .map((s) => ({ actions: [s.Action].flat().sort(), resource: JSON.stringify(s.Resource) }));
};

describe('Meta Lead Ads in the stack', () => {
  test('routes GET and POST of the webhook path to the webhook function', () => {
    for (const method of ['GET', 'POST']) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: `${method} /api/meta-leadgen-webhook` });
    }
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [webhookId, 'Arn'] },
      SourceArn: { 'Fn::Join': ['', Match.arrayWith(['/*/*/api/meta-leadgen-webhook'])] },
    });
  });

  test('builds both functions like the lead functions: Node.js 24 on arm64, ESM bundle, own log group', () => {
    for (const id of [webhookId, workerId]) {
      expect(fn(id)).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler', MemorySize: 512 });
      expect(fn(id).LoggingConfig.LogGroup.Ref).toMatch(/^MetaLeadAds/);
    }
    expect([fn(webhookId).Timeout, fn(workerId).Timeout]).toEqual([10, 30]);
  });

  test('lets the webhook send to the queue and read the secret, and nothing else but its log group', () => {
    const statements = statementsOf(webhookId);
    expect(statements).toHaveLength(3);
    expect(statements.find((s) => s.resource.includes(queueId))!.actions).toEqual(['sqs:SendMessage']);
    expect(statements.find((s) => s.resource.includes(secretId))!.actions).toEqual(['secretsmanager:GetSecretValue']);
    expect(statements.some((s) => /Table/.test(s.resource))).toBe(false);
    expect(statements.flatMap((s) => s.actions)).not.toContainEqual(expect.stringContaining('*'));
  });

  test('lets the worker decrypt page tokens only (under a page encryption context), take and back off its queue\'s messages, and write leads as the lead functions do', () => {
    const statements = statementsOf(workerId);
    expect(statements.find((s) => s.resource.includes(keyId))!.actions).toEqual(['kms:Decrypt']);
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: fn(workerId).Role['Fn::GetAtt'][0] }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 'kms:Decrypt', Condition: { 'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['meta_page_id'] }, Null: { 'kms:EncryptionContextKeys': 'false' } } }),
        ]),
      },
    });
    expect(statements.filter((s) => s.resource.includes(queueId)).flatMap((s) => s.actions).sort()).toEqual(
      ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'],
    );
    // Query alone on Config: Meta's notifications are signed, and a page is found by Query (no key item to get).
    expect(statements.find((s) => s.resource.includes('"ConfigTable"'))!.actions).toEqual(['dynamodb:Query']);
    expect(statements.find((s) => s.resource.includes('"LeadsTable"'))!.actions).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:PutItem']);
    expect(statements.flatMap((s) => s.actions)).not.toContain('kms:Encrypt');
    expect(statements.flatMap((s) => s.actions)).not.toContainEqual(expect.stringContaining('*'));
  });

  test('feeds the worker from the queue with partial batch failure reporting', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: workerId },
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
    });
  });

  test('moves a change to the dead-letter queue after 12 receives, keeps it 14 days, and alarms on it', () => {
    const queue = resources(template, 'AWS::SQS::Queue')[queueId]!.Properties!;
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 12 });
    expect(queue.VisibilityTimeout).toBe(180);
    expect(resources(template, 'AWS::SQS::Queue')[dlqId]!.Properties!.MessageRetentionPeriod).toBe(14 * 24 * 60 * 60);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^MonitoringAlarmTopic') }],
    });
  });

  test('generates the verify token, and puts no secret in the template', () => {
    const secret = resources(template, 'AWS::SecretsManager::Secret')[secretId]!;
    expect(secret.Properties!.GenerateSecretString).toMatchObject({ GenerateStringKey: 'verifyToken', ExcludePunctuation: true, PasswordLength: 40 });
    expect(secret.DeletionPolicy).toBe('Retain');
    // Only the secret's ARN reaches the functions; the values are read at run time.
    expect(/META_APP_SECRET|META_VERIFY_TOKEN/.test(json)).toBe(false);
    expect(fn(workerId).Environment.Variables).toMatchObject({ META_SECRET_ARN: { Ref: secretId }, META_PAGE_TOKEN_KEY_ID: { 'Fn::GetAtt': [keyId, 'Arn'] } });
  });

  test('seals page tokens with a rotated, retained key', () => {
    expect(resources(template, 'AWS::KMS::Key')[keyId]).toMatchObject({ Properties: { EnableKeyRotation: true }, DeletionPolicy: 'Retain' });
  });
});
