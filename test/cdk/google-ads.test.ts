import { portals } from '../../shared/portals/registry.ts';
import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { googleAdsSource } from '../../shared/google/source.ts';

const googleAdsRoute = googleAdsSource.route;
import { logicalIdOf, resources, synthesize } from './synth.ts';

const { template } = synthesize();
const functionId = logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp(`POST ${googleAdsRoute.path}$`) });
const fn = resources(template, 'AWS::Lambda::Function')[functionId]!.Properties!;
const stageOf = (t: typeof template) => Object.values(resources(t, 'AWS::ApiGatewayV2::Stage'))[0]!.Properties!;

describe('Google Ads lead forms in the stack', () => {
  test('route POST of the webhook path, and only POST, to its own function', () => {
    const routes = Object.values(resources(template, 'AWS::ApiGatewayV2::Route')).filter((route) => String(route.Properties!.RouteKey).endsWith(googleAdsRoute.path));
    expect(routes.map((route) => route.Properties!.RouteKey)).toEqual([`POST ${googleAdsRoute.path}`]);
    expect(routes[0]!.Properties!.AuthorizationType).toBe('NONE');
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
      SourceArn: { 'Fn::Join': ['', Match.arrayWith([`/*/*${googleAdsRoute.path}`])] },
    });
  });

  test('build the function like the lead functions, with no queue: it creates the lead in the request', () => {
    expect(fn).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler', MemorySize: 512, Timeout: 10 });
    expect(fn.Environment.Variables).toEqual({
      CONFIG_TABLE_NAME: { Ref: 'ConfigTable' },
      LEADS_TABLE_NAME: { Ref: 'LeadsTable' },
      // The key of the person lookup items it writes with each lead and record (CONTRACT.md section 12).
      PERSON_KEY_SECRET_ARN: { Ref: expect.stringMatching(/^TablesPersonKey/) },
      CONFIG_CACHE_TTL_SECONDS: '30',
    });
    // The stack's event source mappings are Meta's worker's queue, the quiet-source watch's stream and each portal's pull queue: none feeds this function.
    const mappings = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping'));
    expect(mappings).toHaveLength(2 + portals.length);
    expect(mappings.filter((mapping) => JSON.stringify(mapping.Properties!.FunctionName).includes(functionId))).toEqual([]);
  });

  test('throttle the webhook route on its own setting, 20 a second with bursts of 40 by default, or from context', () => {
    expect(stageOf(template).RouteSettings[`POST ${googleAdsRoute.path}`]).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
    const custom = synthesize({ context: { googleAdsThrottlingRateLimit: '3', googleAdsThrottlingBurstLimit: '6' } }).template;
    expect(stageOf(custom).RouteSettings[`POST ${googleAdsRoute.path}`]).toEqual({ ThrottlingRateLimit: 3, ThrottlingBurstLimit: 6 });
    expect(stageOf(custom).RouteSettings['POST /api/website-lead-create']).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
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
