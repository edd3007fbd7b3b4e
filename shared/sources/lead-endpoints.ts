/**
 * The four lead endpoints (CONTRACT.md sections 1 to 7) as sources: API keys, a JSON body, 200 with
 * the lead. Each spreads its endpoint's one declaration (shared/endpoints.ts: name, leads' source,
 * answer, browser-facing, what its function reads) and adds what only the stack and the tools read;
 * everything else is shared (shared/http/lead-handler.ts).
 */
import { portalAEndpoint, portalBEndpoint, socialEndpoint, websiteEndpoint } from '../endpoints.ts';
import type { LeadSourceDescriptor } from './descriptor.ts';

export const websiteSource = {
  ...websiteEndpoint,
  invokeName: 'website',
  title: 'Website',
  brief: 'website and landing-page forms',
  route: { path: '/api/website-lead-create', methods: ['POST', 'OPTIONS'] },
  entry: 'functions/website/handler.ts',
  // The descriptor's word for its authentication (the endpoint declares what the intake runs).
  authentication: 'api-key',
  // Apart from the server-to-server routes (POST and its preflight, each), so a flood on the public form
  // cannot starve the portals; API Gateway cannot throttle per key or per IP (docs/deployment.md).
  throttle: {
    rateLimit: { name: 'websiteThrottlingRateLimit', default: 20 },
    burstLimit: { name: 'websiteThrottlingBurstLimit', default: 40 },
  },
  stack: { functionPath: ['websiteLead'], integrationId: 'websiteIntegration', monitoringName: 'website' },
  sampleEvents: ['events/website.json', 'events/website-duplicate.json', 'events/website-missing-key.json', 'events/website-preflight.json'],
} as const satisfies LeadSourceDescriptor;

export const portalaSource = {
  ...portalAEndpoint,
  invokeName: 'portala',
  title: 'Portal A',
  brief: 'listing portal A',
  route: { path: '/api/portala-lead-create', methods: ['POST'] },
  entry: 'functions/portala/handler.ts',
  authentication: 'api-key',
  stack: { functionPath: ['portalaLead'], integrationId: 'portalaIntegration', monitoringName: 'portala' },
  sampleEvents: ['events/portala.json', 'events/portala-bad-mobile.json'],
} as const satisfies LeadSourceDescriptor;

export const portalbSource = {
  ...portalBEndpoint,
  invokeName: 'portalb',
  title: 'Portal B',
  brief: 'listing portal B',
  route: { path: '/api/portalb-lead-create', methods: ['POST'] },
  entry: 'functions/portalb/handler.ts',
  authentication: 'api-key',
  stack: { functionPath: ['portalbLead'], integrationId: 'portalbIntegration', monitoringName: 'portalb' },
  sampleEvents: ['events/portalb.json'],
} as const satisfies LeadSourceDescriptor;

export const socialSource = {
  ...socialEndpoint,
  invokeName: 'social',
  title: 'Social',
  brief: 'social-ad connectors',
  route: { path: '/api/social-lead-create', methods: ['POST'] },
  entry: 'functions/social/handler.ts',
  authentication: 'api-key',
  stack: { functionPath: ['socialLead'], integrationId: 'socialIntegration', monitoringName: 'social' },
  sampleEvents: ['events/social.json', 'events/social-unknown-platform.json'],
} as const satisfies LeadSourceDescriptor;
