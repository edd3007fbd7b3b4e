/**
 * Google Ads lead forms (CONTRACT.md section 10) as a declared source: each form is a connection of
 * its own, with a key Google sends back in every delivery. What is Google's own is beside it: the
 * delivery and its column mapping (delivery.ts), the use case (google-lead.ts), the chain (webhook-handler.ts),
 * the names its functions read (wire-names.ts); for the tools, its admin operations (admin.ts), its OpenAPI (openapi.ts) and its seed member (seed.ts).
 */
import type { LeadSourceDescriptor } from '../sources/descriptor.ts';
import { docsByReader, whyNamed } from '../sources/named-outside.ts';
import { googleFormAdminRoutes, googleFormConnections, googleFormConnectionWords } from './connections.ts';
import { googleAdsWireNames } from './wire-names.ts';

export const googleAdsSource = {
  ...googleAdsWireNames,
  invokeName: 'google-ads',
  title: 'Google Ads lead forms',
  brief: 'Google Ads lead forms',
  route: { path: '/api/google-ads-lead-webhook', methods: ['POST'] },
  entry: 'functions/google-ads/handler.ts',
  bodyFormat: 'json',
  authentication: 'connection-key',
  browserFacing: false,
  // Apart from the lead endpoints': Google delivers each lead once as it is submitted (and retries what is
  // not answered 200), so a flood here is not Google's, and must not use up what the lead senders are allowed.
  throttle: {
    rateLimit: { name: 'googleAdsThrottlingRateLimit', default: 20 },
    burstLimit: { name: 'googleAdsThrottlingBurstLimit', default: 40 },
  },
  connection: { ...googleFormConnections, ...googleFormConnectionWords },
  channel: { connectionField: 'google_form_id' },
  platformId: { ...googleAdsWireNames.platformId, label: 'lead' },
  stack: { functionPath: ['GoogleAdsLeadForms', 'Webhook'], integrationId: 'GoogleAdsIntegration', monitoringName: 'googleAds' },
  banner: { label: 'Google Ads webhook', note: 'POST, each form with its own key: {seed.googleForms} form(s) in the seed; npm run admin -- add-google-form' },
  openapi: 'shared/google/openapi.ts',
  admin: { routes: googleFormAdminRoutes },
  sampleEvents: ['events/google-ads.json', 'events/google-ads-test-data.json'],
  smoke: {
    check: 'Google Ads webhook refuses a wrong google_key',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"lead_id":"smoke-{random}","form_id":1,"user_column_data":[],"api_version":"1.0","google_key":"smoke-wrong-key","is_test":true}',
    status: 401,
    message: 'Invalid google_key',
  },
  namedOutside: {
    'docs/adding-a-lead-source.md': `${whyNamed.guide}: a connection with a key`,
    ...docsByReader('docs/data-model.md', 'docs/deployment.md', 'docs/reference.md', 'docs/reliability.md', 'docs/running-locally.md', 'docs/how-it-is-built.md'),
  },
} as const satisfies LeadSourceDescriptor;
