/**
 * The four lead endpoints (CONTRACT.md sections 1 to 7) as sources: API keys, a JSON body, 200 with
 * the lead. Their fields and sub sources are shared/endpoints.ts's; everything else is shared
 * (shared/http/lead-handler.ts).
 */
import type { LeadSourceDescriptor } from './descriptor.ts';

export const websiteSource = {
  name: 'website',
  invokeName: 'website',
  leadSource: 'website',
  title: 'Website',
  route: { path: '/api/website-lead-create', methods: ['POST', 'OPTIONS'] },
  entry: 'functions/website/handler.ts',
  bodyFormat: 'json',
  authentication: 'api-key',
  browserFacing: true,
  // Apart from the server-to-server routes (POST and its preflight, each), so a flood on the public form
  // cannot starve the portals; API Gateway cannot throttle per key or per IP (docs/deployment.md).
  throttle: {
    rateLimit: { name: 'websiteThrottlingRateLimit', default: 20 },
    burstLimit: { name: 'websiteThrottlingBurstLimit', default: 40 },
  },
  acceptance: { status: 200, message: 'Lead created successfully', withLead: true },
  stack: { functionPath: ['websiteLead'], integrationId: 'websiteIntegration', monitoringName: 'website' },
  sampleEvents: ['events/website.json', 'events/website-duplicate.json', 'events/website-missing-key.json', 'events/website-preflight.json'],
} as const satisfies LeadSourceDescriptor;

export const portalaSource = {
  name: 'portala',
  invokeName: 'portala',
  leadSource: 'portala',
  title: 'Portal A',
  route: { path: '/api/portala-lead-create', methods: ['POST'] },
  entry: 'functions/portala/handler.ts',
  bodyFormat: 'json',
  authentication: 'api-key',
  browserFacing: false,
  acceptance: { status: 200, message: 'Lead created successfully', withLead: true },
  stack: { functionPath: ['portalaLead'], integrationId: 'portalaIntegration', monitoringName: 'portala' },
  sampleEvents: ['events/portala.json', 'events/portala-bad-mobile.json'],
} as const satisfies LeadSourceDescriptor;

export const portalbSource = {
  name: 'portalb',
  invokeName: 'portalb',
  leadSource: 'portalb',
  title: 'Portal B',
  route: { path: '/api/portalb-lead-create', methods: ['POST'] },
  entry: 'functions/portalb/handler.ts',
  bodyFormat: 'json',
  authentication: 'api-key',
  browserFacing: false,
  acceptance: { status: 200, message: 'Lead created successfully', withLead: true },
  stack: { functionPath: ['portalbLead'], integrationId: 'portalbIntegration', monitoringName: 'portalb' },
  sampleEvents: ['events/portalb.json'],
} as const satisfies LeadSourceDescriptor;

export const socialSource = {
  name: 'social',
  invokeName: 'social',
  leadSource: 'social',
  title: 'Social',
  route: { path: '/api/social-lead-create', methods: ['POST'] },
  entry: 'functions/social/handler.ts',
  bodyFormat: 'json',
  authentication: 'api-key',
  browserFacing: false,
  acceptance: { status: 200, message: 'Lead created successfully', withLead: false },
  stack: { functionPath: ['socialLead'], integrationId: 'socialIntegration', monitoringName: 'social' },
  sampleEvents: ['events/social.json', 'events/social-unknown-platform.json'],
} as const satisfies LeadSourceDescriptor;
