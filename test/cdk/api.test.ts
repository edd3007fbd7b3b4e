import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { routeKeyOf } from '../../shared/routes.ts';
import { adminRoutes } from '../../shared/admin-routes.ts';
import { readFileSync } from 'node:fs';
import { leadRoutes, leadSources } from '../../shared/sources/registry.ts';
import { logicalIdOf, resources, synthesize } from './synth.ts';

const { template } = synthesize();
const cdkContext = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }).context;

/** Function logical id a route's integration invokes, by route key. */
function routeTargets(): Record<string, string> {
  const integrations = resources(template, 'AWS::ApiGatewayV2::Integration');
  const targets: Record<string, string> = {};
  for (const route of Object.values(resources(template, 'AWS::ApiGatewayV2::Route'))) {
    const integrationId = (route.Properties!.Target['Fn::Join'][1] as unknown[])[1] as { Ref: string };
    const integration = integrations[integrationId.Ref]!;
    targets[route.Properties!.RouteKey] = integration.Properties!.IntegrationUri['Fn::GetAtt'][0];
  }
  return targets;
}

function functionFor(path: string): string {
  return logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp(`POST ${path}$`) });
}

describe('The HTTP API', () => {
  test('is an HTTP API (API Gateway v2) with no CORS configuration of its own', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: Match.absent(),
    });
  });

  test('routes POST of each of the four lead paths to its own function, and nothing else but the website preflight, the other sources\' webhooks and the admin API', () => {
    const targets = routeTargets();
    // Every declared source's route, each of its methods (the website's preflight among them), and nothing else.
    expect(Object.keys(targets).filter((key) => !key.includes(' /admin/v1/')).sort()).toEqual(
      leadSources.flatMap(({ route }) => route.methods.map((method) => `${method} ${route.path}`)).sort(),
    );
    expect(targets['OPTIONS /api/website-lead-create']).toBeDefined();
    for (const route of leadRoutes) {
      expect(targets[`POST ${route.path}`]).toBe(functionFor(route.path));
    }
    expect(new Set(leadRoutes.map((r) => targets[`POST ${r.path}`])).size).toBe(4);
  });

  test('sends every admin route to the one admin function, with IAM authorization', () => {
    const targets = routeTargets();
    const admin = logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp('admin API') });
    const adminKeys = Object.keys(targets).filter((key) => key.includes(' /admin/v1/'));
    expect(adminKeys.sort()).toEqual(adminRoutes.map(routeKeyOf).sort());
    for (const key of adminKeys) expect(targets[key]).toBe(admin);
    const routes = Object.values(resources(template, 'AWS::ApiGatewayV2::Route')).map((r) => r.Properties!);
    for (const route of routes) {
      if (route.RouteKey.includes(' /admin/v1/')) expect(route.AuthorizationType).toBe('AWS_IAM');
      else expect(route.AuthorizationType ?? 'NONE').toBe('NONE');
    }
    template.hasOutput('AdminBaseUrl', { Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalIdOf(template, 'AWS::ApiGatewayV2::Api'), 'ApiEndpoint'] }, '/admin/v1']] } });
  });

  test('sends the website preflight (OPTIONS) to the website function, which answers CORS itself', () => {
    expect(routeTargets()['OPTIONS /api/website-lead-create']).toBe(functionFor('/api/website-lead-create'));
  });

  test('hands the functions payload format 2.0 events', () => {
    template.allResourcesProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });

  test('lets API Gateway invoke each function only from its own route', () => {
    for (const route of leadRoutes) {
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [functionFor(route.path), 'Arn'] },
        SourceArn: { 'Fn::Join': ['', Match.arrayWith([`/*/*${route.path}`])] },
      });
    }
  });

  test('serves one auto-deployed $default stage, so {base_url} carries no stage segment', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: '$default', AutoDeploy: true });
    template.hasOutput('BaseUrl', {
      // https://<api-id>.execute-api.<region>.amazonaws.com, with no stage and no trailing slash
      Value: { 'Fn::GetAtt': [logicalIdOf(template, 'AWS::ApiGatewayV2::Api'), 'ApiEndpoint'] },
    });
  });

  test('throttles each server-to-server route at 50 requests per second with bursts of 100 by default', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
  });

  test('throttles the website route and its preflight apart, at 20 requests per second with bursts of 40 by default', () => {
    const stage = Object.values(resources(template, 'AWS::ApiGatewayV2::Stage'))[0]!;
    // The website's, and each other source that declares a throttle of its own (test/cdk/google-ads.test.ts,
    // test/cdk/calls.test.ts), at its settings' values in cdk.json's context, or their defaults.
    const setting = ({ name, default: fallback }: { name: string; default: number }) => Number(cdkContext[name] ?? fallback);
    expect(stage.Properties!.RouteSettings['POST /api/website-lead-create']).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
    expect(stage.Properties!.RouteSettings['OPTIONS /api/website-lead-create']).toEqual({ ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 });
    expect(stage.Properties!.RouteSettings).toEqual({
      ...Object.fromEntries(
        leadSources.flatMap(({ route, throttle }) =>
          throttle ? route.methods.map((method) => [`${method} ${route.path}`, { ThrottlingRateLimit: setting(throttle.rateLimit), ThrottlingBurstLimit: setting(throttle.burstLimit) }]) : [],
        ),
      ),
    });
    // The routes named by the settings exist before the stage is updated.
    const routeIds = Object.entries(resources(template, 'AWS::ApiGatewayV2::Route'))
      .filter(([, route]) => String(route.Properties!.RouteKey).endsWith('/api/website-lead-create'))
      .map(([id]) => id);
    expect(routeIds).toHaveLength(2);
    expect((stage as { DependsOn?: string[] }).DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  test("takes the throttling limits, the website route's apart, from context", () => {
    const custom = synthesize({
      context: { throttlingRateLimit: '200', throttlingBurstLimit: '400', websiteThrottlingRateLimit: '5', websiteThrottlingBurstLimit: '10' },
    }).template;
    custom.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 },
    });
    const stage = Object.values(resources(custom, 'AWS::ApiGatewayV2::Stage'))[0]!;
    expect(stage.Properties!.RouteSettings['POST /api/website-lead-create']).toEqual({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 });
  });

  test('writes one JSON access log line per request, with no header, body or query string', () => {
    const stage = Object.values(resources(template, 'AWS::ApiGatewayV2::Stage'))[0]!;
    const { DestinationArn, Format } = stage.Properties!.AccessLogSettings;
    expect(DestinationArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ApiAccessLogs/), 'Arn'] });
    const fields = JSON.parse(Format) as Record<string, string>;
    expect(fields).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      integrationError: '$context.integrationErrorMessage',
    });
    expect(Format).not.toMatch(/header|body|querystring|x-api-key/i);
  });

  test("logs a refused request's error type, never API Gateway's error message (for a refused signature it can hold the canonical request, query included)", () => {
    const stage = Object.values(resources(template, 'AWS::ApiGatewayV2::Stage'))[0]!;
    const format = stage.Properties!.AccessLogSettings.Format as string;
    expect(format).not.toMatch(/\$context\.(error|authorizer)\.message/i);
    expect(format).not.toMatch(/\$context\.authorizer\.error/i);
    expect(JSON.parse(format)).toMatchObject({ errorType: '$context.error.responseType' });
  });
});
