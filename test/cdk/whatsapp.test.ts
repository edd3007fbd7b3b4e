/**
 * WhatsApp chats in the stack (CONTRACT.md section 15): the webhook's own function, built from its
 * descriptor like every lead function, its GET and POST routes with their own throttle, its
 * conversation window setting, the Meta app's secret read where the Meta construct keeps it, and least
 * privilege: no key lookups, only its own numbers' items read and checked.
 */
import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { leadFunctionTableAccess } from '../../lib/constructs/lead-tables.ts';
import { whatsappSource } from '../../shared/whatsapp/source.ts';
import { logicalIdOf, resources, synthesize } from './synth.ts';

const { template } = synthesize();
const functionId = logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp(`${whatsappSource.route.path}$`) });
const fn = resources(template, 'AWS::Lambda::Function')[functionId]!.Properties!;
const stageOf = (t: typeof template) => Object.values(resources(t, 'AWS::ApiGatewayV2::Stage'))[0]!.Properties!;
const routeKeys = whatsappSource.route.methods.map((method) => `${method} ${whatsappSource.route.path}`);
const metaSecretId = logicalIdOf(template, 'AWS::SecretsManager::Secret', { Description: Match.stringLikeRegexp('Meta app') });
type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const statementsOf = (t: typeof template, id: string): Statement[] => {
  const roleId = resources(t, 'AWS::Lambda::Function')[id]!.Properties!.Role['Fn::GetAtt'][0];
  return Object.values(resources(t, 'AWS::IAM::Policy'))
    .filter((policy) => policy.Properties!.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties!.PolicyDocument.Statement);
};
const actionsOf = (statement: Statement) => [statement.Action].flat();

describe('WhatsApp chats in the stack', () => {
  test('route GET and POST of /api/whatsapp-webhook to its own function, with no authorizer (the function checks the signature)', () => {
    const routes = Object.values(resources(template, 'AWS::ApiGatewayV2::Route')).filter((route) => String(route.Properties!.RouteKey).endsWith(` ${whatsappSource.route.path}`));
    expect(routes.map((route) => route.Properties!.RouteKey).sort()).toEqual(['GET /api/whatsapp-webhook', 'POST /api/whatsapp-webhook']);
    for (const route of routes) expect(route.Properties!.AuthorizationType).toBe('NONE');
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
      SourceArn: { 'Fn::Join': ['', Match.arrayWith([`/*/*${whatsappSource.route.path}`])] },
    });
  });

  test('build the function like the lead functions, with the conversation window (7 days) and the Meta app’s secret in its environment', () => {
    expect(fn).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler', MemorySize: 512, Timeout: 10 });
    expect(fn.Environment.Variables).toEqual({
      CONFIG_TABLE_NAME: { Ref: 'ConfigTable' },
      LEADS_TABLE_NAME: { Ref: 'LeadsTable' },
      PERSON_KEY_SECRET_ARN: { Ref: expect.stringMatching(/^TablesPersonKey/) },
      CONFIG_CACHE_TTL_SECONDS: '30',
      WHATSAPP_CONVERSATION_DAYS: '7',
      // The Meta construct's one secret (app secret and verify token), not a copy of it.
      META_SECRET_ARN: { Ref: metaSecretId },
    });
    expect(Object.keys(resources(template, 'AWS::SecretsManager::Secret')).filter((id) => /WhatsApp/i.test(id))).toEqual([]);
  });

  test('take the conversation window from the whatsappConversationDays setting (a fraction of a day allowed), and give it to no other function', () => {
    const custom = synthesize({ context: { whatsappConversationDays: '0.5' } }).template;
    expect(resources(custom, 'AWS::Lambda::Function')[functionId]!.Properties!.Environment.Variables.WHATSAPP_CONVERSATION_DAYS).toBe('0.5');
    expect(synthesize({ props: { whatsappConversationDays: 3 } }).stack.settings.whatsappConversationDays).toBe(3);
    for (const wrong of ['0', '-1', '366', 'a week']) expect(() => synthesize({ context: { whatsappConversationDays: wrong } })).toThrow(/whatsappConversationDays must be a number from/);
    const others = Object.entries(resources(template, 'AWS::Lambda::Function')).filter(([id]) => id !== functionId);
    for (const [id, other] of others) expect([id, other.Properties!.Environment?.Variables?.WHATSAPP_CONVERSATION_DAYS]).toEqual([id, undefined]);
  });

  test('grant it the lead functions’ writes, no key lookup, a read and a check of its own numbers’ items only, and the Meta app’s secret (GetSecretValue alone)', () => {
    const statements = statementsOf(template, functionId);
    const dynamodbActions = statements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));
    expect(new Set(dynamodbActions)).toEqual(
      // No BatchWriteItem: every message carries its id, claimed in the transaction of its lead or record.
      new Set([...leadFunctionTableAccess.config, ...leadFunctionTableAccess.leads, ...leadFunctionTableAccess.repeatSettling, 'dynamodb:ConditionCheckItem', 'dynamodb:GetItem']),
    );
    // GetItem on the Config table only on its numbers' items (an API key's item is never read).
    const configReads = statements.filter((s) => actionsOf(s).includes('dynamodb:GetItem') && JSON.stringify(s.Resource).includes('ConfigTable'));
    expect(configReads).toEqual([expect.objectContaining({ Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['WHATSAPPNUMBER#*'] } } })]);
    const checks = statements.filter((s) => actionsOf(s).includes('dynamodb:ConditionCheckItem'));
    expect(checks).toEqual([
      expect.objectContaining({ Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LEADS#*', 'IDEMPOTENCY#*'] } } }),
      expect.objectContaining({ Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['WHATSAPPNUMBER#*'] } } }),
    ]);
    // UpdateItem only where a repeat is settled after an erasure: no rejection or request counter.
    expect(statements.filter((s) => actionsOf(s).includes('dynamodb:UpdateItem'))).toEqual([
      expect.objectContaining({ Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LEADS#*', 'IDEMPOTENCY#*'] } } }),
    ]);
    const secrets = statements.filter((s) => actionsOf(s).some((action) => action.startsWith('secretsmanager:')));
    expect(new Set(secrets.flatMap(actionsOf))).toEqual(new Set(['secretsmanager:GetSecretValue']));
    const secretResources = secrets.flatMap((s) => [s.Resource].flat());
    expect(secretResources).toContainEqual({ Ref: metaSecretId });
    expect(secretResources).toContainEqual({ Ref: expect.stringMatching(/^TablesPersonKey/) });
    expect(secretResources).toHaveLength(2);
    for (const statement of statements) expect(JSON.stringify(statement.Resource)).not.toBe('"*"');
  });

  test('throttle its routes on their own settings, 50 a second with bursts of 100 by default, or from context', () => {
    for (const key of routeKeys) expect(stageOf(template).RouteSettings[key]).toEqual({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
    const custom = synthesize({ context: { whatsappThrottlingRateLimit: '3', whatsappThrottlingBurstLimit: '6' } }).template;
    for (const key of routeKeys) expect(stageOf(custom).RouteSettings[key]).toEqual({ ThrottlingRateLimit: 3, ThrottlingBurstLimit: 6 });
  });

  test('alarm on errors and throttles of the function, and show it on the dashboard', () => {
    for (const metric of ['Errors', 'Throttles']) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: metric,
        Namespace: 'AWS/Lambda',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
        AlarmActions: [{ Ref: Match.stringLikeRegexp('^MonitoringAlarmTopic') }],
      });
    }
    const dashboard = JSON.stringify(Object.values(resources(template, 'AWS::CloudWatch::Dashboard'))[0]!.Properties!.DashboardBody);
    expect(dashboard).toContain(functionId);
  });
});
