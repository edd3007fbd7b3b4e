import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { accessLogFields } from '../../lib/constructs/lead-api.ts';
import { leadFunctionTableAccess } from '../../lib/constructs/lead-tables.ts';
import { callsSource } from '../../shared/calls/source.ts';
import { logicalIdOf, resources, synthesize } from './synth.ts';

const { template } = synthesize();
const functionId = logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp(`${callsSource.route.path}$`) });
const fn = resources(template, 'AWS::Lambda::Function')[functionId]!.Properties!;
const stageOf = (t: typeof template) => Object.values(resources(t, 'AWS::ApiGatewayV2::Stage'))[0]!.Properties!;
const routeKeys = callsSource.route.methods.map((method) => `${method} ${callsSource.route.path}`);

describe('calls to project numbers in the stack', () => {
  test('route GET and POST of the webhook path, with its provider as a path parameter, to its own function', () => {
    expect(callsSource.route.path).toBe('/api/call-lead-webhook/{provider}');
    const routes = Object.values(resources(template, 'AWS::ApiGatewayV2::Route')).filter((route) => String(route.Properties!.RouteKey).endsWith(callsSource.route.path));
    expect(routes.map((route) => route.Properties!.RouteKey).sort()).toEqual(['GET /api/call-lead-webhook/{provider}', 'POST /api/call-lead-webhook/{provider}']);
    for (const route of routes) expect(route.Properties!.AuthorizationType).toBe('NONE');
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
      SourceArn: { 'Fn::Join': ['', Match.arrayWith([`/*/*${callsSource.route.path}`])] },
    });
  });

  test('build the function like the lead functions: same runtime, architecture, memory, deadline and environment', () => {
    expect(fn).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler', MemorySize: 512, Timeout: 10 });
    expect(fn.Environment.Variables).toEqual({
      CONFIG_TABLE_NAME: { Ref: 'ConfigTable' },
      LEADS_TABLE_NAME: { Ref: 'LeadsTable' },
      PERSON_KEY_SECRET_ARN: { Ref: expect.stringMatching(/^TablesPersonKey/) },
      CONFIG_CACHE_TTL_SECONDS: '30',
      CALL_REQUESTS_PER_KEY_PER_MINUTE: '300',
    });
  });

  test('give the function its per-key bound from the callRequestsPerKeyPerMinute setting (300 by default), and no other function', () => {
    const custom = synthesize({ context: { callRequestsPerKeyPerMinute: '40' } }).template;
    expect(resources(custom, 'AWS::Lambda::Function')[functionId]!.Properties!.Environment.Variables.CALL_REQUESTS_PER_KEY_PER_MINUTE).toBe('40');
    const others = Object.entries(resources(template, 'AWS::Lambda::Function')).filter(([id]) => id !== functionId);
    for (const [id, other] of others) expect([id, other.Properties!.Environment?.Variables?.CALL_REQUESTS_PER_KEY_PER_MINUTE]).toEqual([id, undefined]);
  });

  test('grant it the lead functions’ table access, its key counters, the check of its own numbers in its writes, and nothing more (no Google form guard, no rejection counter, no admin writes)', () => {
    const roleId = fn.Role['Fn::GetAtt'][0];
    const statements = Object.values(resources(template, 'AWS::IAM::Policy'))
      .filter((policy) => policy.Properties!.Roles.some((role: { Ref: string }) => role.Ref === roleId))
      .flatMap((policy) => policy.Properties!.PolicyDocument.Statement);
    const dynamodbActions = statements.flatMap((statement: { Action: string | string[] }) => [statement.Action].flat()).filter((action: string) => action.startsWith('dynamodb:'));
    expect(new Set(dynamodbActions)).toEqual(
      new Set([
        ...leadFunctionTableAccess.keyLookups,
        ...leadFunctionTableAccess.config,
        ...leadFunctionTableAccess.leads,
        ...leadFunctionTableAccess.batchWrites,
        ...leadFunctionTableAccess.repeatSettling,
        ...leadFunctionTableAccess.keyRequestCounter,
        // The guard of each write a call to a connected number makes (CONTRACT.md section 14).
        'dynamodb:ConditionCheckItem',
      ]),
    );
    const checks = statements.filter((statement: { Action: string | string[] }) => [statement.Action].flat().includes('dynamodb:ConditionCheckItem'));
    // A keyed repeat's check of its original's claim (the lead functions' own), and the check of its numbers.
    expect(checks).toEqual([
      expect.objectContaining({ Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LEADS#*', 'IDEMPOTENCY#*'] } } }),
      expect.objectContaining({ Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CALLNUMBERS#*'] } } }),
    ]);
    // UpdateItem only where a repeat is settled after an erasure (its lead's and its key's items) and on
    // the per-key request counters: never a rejection counter.
    const updates = statements.filter((statement: { Action: string | string[] }) => [statement.Action].flat().includes('dynamodb:UpdateItem'));
    expect(updates).toEqual([
      expect.objectContaining({ Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LEADS#*', 'IDEMPOTENCY#*'] } } }),
      expect.objectContaining({ Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['KEYRATE#*'] } } }),
    ]);
  });

  test('throttle the webhook routes on their own setting, a safety net of 200 a second with bursts of 400 by default (each key has its own bound), or from context', () => {
    for (const key of routeKeys) expect(stageOf(template).RouteSettings[key]).toEqual({ ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 });
    const custom = synthesize({ context: { callsThrottlingRateLimit: '3', callsThrottlingBurstLimit: '6' } }).template;
    for (const key of routeKeys) expect(stageOf(custom).RouteSettings[key]).toEqual({ ThrottlingRateLimit: 3, ThrottlingBurstLimit: 6 });
    expect(stageOf(custom).RouteSettings['POST /api/google-ads-lead-webhook']).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
  });

  test('keep the query string, where a provider sends the key, out of the API’s access log', () => {
    const format = stageOf(template).AccessLogSettings.Format as string;
    expect(JSON.parse(format)).toEqual(accessLogFields);
    for (const variable of ['$context.path', '$context.requestUri', '$context.rawQueryString', '$context.querystring', '$input', '$request', '$method.request']) {
      expect(format.toLowerCase()).not.toContain(variable.toLowerCase());
    }
    expect(format).toContain('$context.routeKey');
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
