import { describe, expect, test } from '@jest/globals';
import { CfnResource, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { synthesize } from './synth.ts';

const { stack } = synthesize();
/** The stack that delivers to a CRM endpoint too: its API destination, connection and delivery queue. */
const delivering = synthesize({ context: { crmWebhookUrl: 'https://crm.example/hooks/leads', crmWebhookAuthorizationSecret: 'lead-intake/crm-webhook' } }).stack;

function allConstructs(root: IConstruct): IConstruct[] {
  return [root, ...root.node.children.flatMap(allConstructs)];
}

/**
 * Every acknowledgment of a cdk-nag rule in the stack: where it is, and what it says. (The CDK itself
 * acknowledges CloudFormation's validator's W3010 on a stack whose VPC reflects on its zones.)
 */
const acknowledgments = allConstructs(stack).flatMap((construct) =>
  construct.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({ construct, id, reason })))
    .filter(({ id }) => !id.startsWith('CloudFormation-Validate::')),
);

describe('cdk-nag (AWS Solutions checks)', () => {
  test('finds no unacknowledged error or warning', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    const findings = report.violations.map((v) => `${v.severity} ${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(findings).toEqual([]);
  });

  test('finds nothing either when leads are delivered to the CRM', () => {
    const report = new AwsSolutionsChecks().validateScope(delivering);
    expect(report.violations.map((v) => `${v.severity} ${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });

  test('is acknowledged only on single resources, each time with a reason', () => {
    expect(acknowledgments.length).toBeGreaterThan(0);
    for (const { construct, reason } of acknowledgments) {
      expect(CfnResource.isCfnResource(construct)).toBe(true);
      expect(String(reason).length).toBeGreaterThan(60);
    }
  });

  test('acknowledges only: routes without an API Gateway authorizer, dead-letter queues having no DLQ, the Meta secret and the person lookup key having no rotation, the ListStreams on "*" of the pipes and the quiet-source watch, and the portal pulls\' VPC (its network interfaces\' managed policy, no flow logs)', () => {
    const byRule = acknowledgments.map(({ construct, id }) => `${id.replace(/^annotation::/i, '')} ${(construct as CfnResource).cfnResourceType}`);
    expect(byRule.sort()).toEqual([
      ...Array(12).fill('AwsSolutions-APIG4 AWS::ApiGatewayV2::Route'),
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole] AWS::IAM::Role',
      'AwsSolutions-IAM5[Resource::*] AWS::IAM::Policy',
      'AwsSolutions-IAM5[Resource::*] AWS::IAM::Policy',
      'AwsSolutions-SMG4 AWS::SecretsManager::Secret',
      'AwsSolutions-SMG4 AWS::SecretsManager::Secret',
      'AwsSolutions-SQS3 AWS::SQS::Queue',
      'AwsSolutions-SQS3 AWS::SQS::Queue',
      'AwsSolutions-SQS3 AWS::SQS::Queue',
      'AwsSolutions-SQS3 AWS::SQS::Queue',
      'AwsSolutions-VPC7 AWS::EC2::VPC',
    ]);
  });
});
