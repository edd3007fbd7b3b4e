import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { requestSources } from '../../shared/sources/registry.ts';
import { logicalIdOf, resources, synthesize } from './synth.ts';

const { template } = synthesize();
const custom = synthesize({ context: { stage: 'prod', alarmEmail: 'ops@example.com' } }).template;
// The Meta Lead Ads construct's own alarms are test/cdk/meta.test.ts's, the portal pulls' test/cdk/portals.test.ts's.
const alarms = Object.entries(resources(template, 'AWS::CloudWatch::Alarm')).filter(([id]) => !id.startsWith('MetaLeadAds') && !id.startsWith('PortalPulls')).map(([, a]) => a.Properties!);
const topicId = logicalIdOf(template, 'AWS::SNS::Topic');
const metricNames = (alarm: Record<string, any>): string[] =>
  alarm.MetricName ? [alarm.MetricName] : alarm.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric.MetricName);

describe('Monitoring', () => {
  test('alarms on the API 5XX rate, as a share of requests', () => {
    const rate = alarms.filter((a) => metricNames(a).includes('5xx'));
    expect(rate).toHaveLength(1);
    expect(metricNames(rate[0]!).sort()).toEqual(['5xx', 'Count']);
    expect(rate[0]!.Threshold).toBe(5);
  });

  test('alarms on errors and on throttles of each function: the four lead functions, Google Ads lead forms, the admin, the events enrichment, the quiet-source watch and the retention sweep', () => {
    // One per source whose function makes the lead in the request (Meta's are its construct's), the admin, the enrichment, the watch and the sweep.
    expect(alarms.filter((a) => a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda')).toHaveLength(requestSources.length + 4);
    expect(alarms.filter((a) => a.MetricName === 'Throttles' && a.Namespace === 'AWS/Lambda')).toHaveLength(requestSources.length + 4);
  });

  test('alarms on throttled reads and writes of each table', () => {
    const throttles = alarms.filter((a) => metricNames(a).includes('WriteThrottleEvents'));
    expect(throttles).toHaveLength(2);
    for (const alarm of throttles) expect(metricNames(alarm).sort()).toEqual(['ReadThrottleEvents', 'WriteThrottleEvents']);
  });

  test('alarms on failed pipe executions and on anything in the dead-letter queues (the events’ and the quiet-source watch’s)', () => {
    const pipeIds = Object.keys(resources(template, 'AWS::Pipes::Pipe')).sort();
    const pipeAlarms = alarms.filter((a) => metricNames(a).includes('ExecutionFailed'));
    expect(pipeAlarms.map((a) => a.Metrics[0].MetricStat.Metric).map((m: any) => [m.Namespace, m.Dimensions[0].Value.Ref]).sort())
      .toEqual(pipeIds.map((id) => ['AWS/EventBridge/Pipes', id]));
    expect(alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible')).toHaveLength(2);
  });

  test('sends every alarm, and its recovery, to the alarm topic', () => {
    // The API's 5XX rate, errors and throttles of each function (one per request source, the admin, the
    // enrichment), each table's throttles, each pipe's failed executions (the Lead Erased pipe's too,
    // CONTRACT.md section 12), the events' dead-letter queue, and the quiet-source watch's errors,
    // throttles and dead-letter queue (its silent-channel alarm is off by default), and the retention
    // sweep's errors and throttles.
    const pipes = Object.keys(resources(template, 'AWS::Pipes::Pipe')).length;
    expect(alarms).toHaveLength(1 + 2 * (requestSources.length + 4) + 2 + pipes + 2);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.OKActions).toEqual([{ Ref: topicId }]);
      expect(alarm.TreatMissingData).toBe('notBreaching');
    }
    template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
  });

  test('keeps the alarm topic encrypted with a rotated key CloudWatch may use, and SSL-only', () => {
    const keyId = logicalIdOf(template, 'AWS::KMS::Key', { Description: 'Encrypts the lead intake alarm topic' });
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] })]) },
    });
    // The topic's own policy replaces SNS's default one: CloudWatch (of this account only) must be allowed in it.
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ],
      },
    });
  });

  test('subscribes no one by default, and the alarm e-mail address when given in context', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    custom.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: Match.anyValue() },
    });
  });

  test("draws the service's own lead metrics: created, repeated, replayed, refused and failed", () => {
    const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    for (const metric of ['LeadsCreated', 'LeadsRepeated', 'LeadsReplayed', 'LeadsRejected', 'LeadsFailed']) {
      expect(body).toMatch(new RegExp(`SEARCH\\('\\{LeadIntake,service,source(,reason)?\\} MetricName=[\\\\"]+${metric}[\\\\"]+'`));
    }
    expect(body).toContain('{LeadIntake,service,source,reason}');
  });

  test('draws a dashboard named after the stage', () => {
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'lead-intake-dev' });
    custom.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'lead-intake-prod' });
  });
});
