/**
 * Portal pulls in the stack (CONTRACT.md section 17, lib/constructs/portal-pulls.ts): an EventBridge
 * schedule every portalPullMinutes runs the schedule function, which queues each connected login on its
 * portal's SQS queue; the pull function consumes each queue at most portalPullConcurrency at once, from a
 * VPC whose one NAT gateway has one Elastic IP (the output the portals allow-list). Credentials: sealed by
 * the admin function, opened by the pull function, each under the portal_login encryption context only.
 */
import { describe, expect, test } from '@jest/globals';
import { portals } from '../../shared/portals/registry.ts';
import { resources, synthesize } from './synth.ts';

const { template } = synthesize();
const functions = resources(template, 'AWS::Lambda::Function');
const idOf = (description: RegExp) => Object.keys(functions).find((id) => description.test(String(functions[id]!.Properties!.Description)))!;
const adminId = idOf(/admin API/);
const pullId = idOf(/portal pulls, each queued/);
const scheduleId = idOf(/portal pull schedule/);
const keyId = Object.keys(resources(template, 'AWS::KMS::Key')).find((id) => id.startsWith('MetaLeadAdsPageTokenKey'))!;
const busId = Object.keys(resources(template, 'AWS::Events::EventBus'))[0]!;
const statementsOf = (functionId: string) => {
  const roleId = functions[functionId]!.Properties!.Role['Fn::GetAtt'][0];
  return Object.values(resources(template, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties!.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => p.Properties!.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);
};
const portalContext = { 'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['portal_login'] }, Null: { 'kms:EncryptionContextKeys': 'false' } };
const queues = Object.entries(resources(template, 'AWS::SQS::Queue')).filter(([id]) => /^PortalPullsQueue/.test(id));
const mappings = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping')).filter((m) => JSON.stringify(m.Properties!.FunctionName).includes(pullId));

describe('portal pulls in the stack', () => {
  test('run on an EventBridge schedule every portalPullMinutes (5 by default), invoking the schedule function', () => {
    const rules = Object.values(resources(template, 'AWS::Events::Rule')).filter((rule) => JSON.stringify(rule.Properties!.Targets).includes(scheduleId));
    expect(rules.map((rule) => rule.Properties!.ScheduleExpression)).toEqual(['rate(5 minutes)']);
    const every2 = resources(synthesize({ context: { portalPullMinutes: '2' } }).template, 'AWS::Events::Rule');
    expect(Object.values(every2).some((rule) => rule.Properties!.ScheduleExpression === 'rate(2 minutes)' && /Portal pulls/.test(rule.Properties!.Description))).toBe(true);
  });

  test('queue one pull per login on a queue per portal of the registry, each consumed one login at a time, at most portalPullConcurrency at once', () => {
    expect(queues).toHaveLength(portals.length);
    expect(mappings).toHaveLength(portals.length);
    for (const mapping of mappings) expect(mapping.Properties).toMatchObject({ BatchSize: 1, ScalingConfig: { MaximumConcurrency: 4 }, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    for (const [, queue] of queues) expect(queue.Properties).toMatchObject({ MessageRetentionPeriod: 3600, VisibilityTimeout: 720, RedrivePolicy: { maxReceiveCount: 2 } });
    // The schedule knows each portal's queue by the portal's name.
    const named = JSON.stringify(functions[scheduleId]!.Properties!.Environment.Variables.PORTAL_PULL_QUEUES);
    for (const { source } of portals) expect(named).toContain(`\\"${source.name}\\":\\"`);
    for (const [id] of queues) expect(named).toContain(`{"Ref":"${id}"}`);
  });

  test('refuse a portalPullConcurrency an SQS event source cannot hold to at synth', () => {
    expect(() => synthesize({ context: { portalPullConcurrency: '1' } })).toThrow('portalPullConcurrency');
  });

  test('time a pull out at 4 minutes, under its login’s 5-minute lease', () => {
    expect(functions[pullId]!.Properties!.Timeout).toBe(240);
  });

  test('pull from a VPC whose one NAT gateway has one Elastic IP, output as PortalEgressAddress; DynamoDB through a gateway endpoint', () => {
    expect(Object.keys(resources(template, 'AWS::EC2::NatGateway'))).toHaveLength(1);
    const [eipId, ...otherEips] = Object.keys(resources(template, 'AWS::EC2::EIP'));
    expect(otherEips).toEqual([]);
    expect(Object.values(resources(template, 'AWS::EC2::NatGateway'))[0]!.Properties!.AllocationId).toEqual({ 'Fn::GetAtt': [eipId, 'AllocationId'] });
    template.hasOutput('PortalEgressAddress', { Value: { Ref: eipId } });
    expect(functions[pullId]!.Properties!.VpcConfig.SubnetIds).toHaveLength(2);
    expect(Object.values(resources(template, 'AWS::EC2::VPCEndpoint')).map((e) => e.Properties!.VpcEndpointType ?? 'Gateway')).toEqual(['Gateway']);
    // Only the pull function is in the VPC: the lead functions keep Lambda's own network.
    expect(Object.entries(functions).filter(([, fn]) => fn.Properties!.VpcConfig).map(([id]) => id)).toEqual([pullId]);
  });

  test('with portalEgress shared, have no VPC and no egress address', () => {
    const shared = synthesize({ context: { portalEgress: 'shared' } }).template;
    expect(Object.keys(resources(shared, 'AWS::EC2::VPC'))).toEqual([]);
    expect(Object.keys(shared.toJSON().Outputs)).not.toContain('PortalEgressAddress');
  });

  test('let the pull function open credentials only under the portal_login context, and the admin function only seal them', () => {
    const kmsOf = (id: string) => statementsOf(id).filter((s) => [s.Action].flat().some((a) => a.startsWith('kms:')));
    expect(kmsOf(pullId)).toEqual([{ Effect: 'Allow', Action: 'kms:Decrypt', Resource: { 'Fn::GetAtt': [keyId, 'Arn'] }, Condition: portalContext }]);
    expect(kmsOf(adminId).filter((s) => JSON.stringify(s.Condition ?? {}).includes('portal_login'))).toEqual([{ Effect: 'Allow', Action: 'kms:Encrypt', Resource: { 'Fn::GetAtt': [keyId, 'Arn'] }, Condition: portalContext }]);
  });

  test('let the pull function tell the lead bus, the schedule only send to the pull queues, and the admin function only invoke the pull function', () => {
    expect(statementsOf(pullId)).toContainEqual(expect.objectContaining({ Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } }));
    expect(statementsOf(scheduleId).filter((s) => [s.Action].flat().some((a) => a.startsWith('sqs:')))).toEqual([
      expect.objectContaining({ Action: 'sqs:SendMessage', Resource: expect.arrayContaining(queues.map(([id]) => ({ 'Fn::GetAtt': [id, 'Arn'] }))) }),
    ]);
    expect(statementsOf(scheduleId).filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')))).toEqual([
      expect.objectContaining({ Action: 'dynamodb:Query', Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PORTALPULLS'] } } }),
    ]);
    expect(statementsOf(adminId)).toContainEqual(expect.objectContaining({ Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [pullId, 'Arn'] } }));
    expect(functions[adminId]!.Properties!.Environment.Variables.PORTAL_PULL_FUNCTION_NAME).toEqual({ Ref: pullId });
    expect(statementsOf(adminId).filter((s) => [s.Action].flat().includes('events:PutEvents'))).toEqual([]);
  });

  test('alarm on the pull and schedule functions, the dead-letter queue and each portal’s waiting pulls, and show each portal on the dashboard', () => {
    const alarms = Object.entries(resources(template, 'AWS::CloudWatch::Alarm')).filter(([id]) => id.startsWith('PortalPulls'));
    expect(alarms.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(
      ['PortalPullsPullDeadLetters', 'PortalPullsPullFunctionErrors', 'PortalPullsScheduleFunctionErrors', ...portals.map(({ source }) => `PortalPullsPullsWaiting${source.name}`)].sort(),
    );
    const dashboard = JSON.stringify(Object.values(resources(template, 'AWS::CloudWatch::Dashboard'))[0]!.Properties!.DashboardBody);
    for (const { source } of portals) expect(dashboard).toContain(source.title);
    expect(dashboard).toContain('PortalEnquiriesStored');
  });
});
