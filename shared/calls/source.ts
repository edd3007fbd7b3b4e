/**
 * Calls to a project's number (CONTRACT.md section 13) as a declared source: a telephony provider
 * notifies the service of each call, with an API key scoped to `calls` in `x-api-key` or `?key=`. What
 * is its own is beside it: the provider table (providers.ts), the parameters however sent
 * (parameters.ts), a call read through a provider's row (delivery.ts), the use case (call-lead.ts), the
 * chain (webhook-handler.ts), the names its functions read (wire-names.ts); for the tools, its admin operations (admin.ts), its OpenAPI (openapi.ts)
 * and its seed member (seed.ts). Its numbers are connected per account (numbers.ts, in the one connection store).
 */
import type { LeadSourceDescriptor } from '../sources/descriptor.ts';
import { docsByReader, whyNamed } from '../sources/named-outside.ts';
import { callNumberAdminRoutes, callNumberConnections, callNumberConnectionWords } from './connections.ts';
import { callRequestsSetting, callsWireNames } from './wire-names.ts';

export const callsSource = {
  ...callsWireNames,
  invokeName: 'calls',
  title: 'Calls to project numbers',
  brief: 'calls to a project’s number',
  route: { path: '/api/call-lead-webhook/{provider}', methods: ['GET', 'POST'], queryString: true },
  entry: 'functions/call-lead-webhook/handler.ts',
  bodyFormat: 'json',
  authentication: 'scoped-api-key',
  // Its deliveries name a number: each write carries the number's guard (a ConditionCheck on its item).
  connection: { ...callNumberConnections, ...callNumberConnectionWords },
  browserFacing: false,
  // Apart from the lead endpoints': a provider notifies each call once (and retries what is not answered),
  // so a flood here must not use up what the lead senders are allowed. API Gateway throttles a route, not
  // a caller: this is the platform's safety net, set well above what every tenant's calls need together,
  // and the bound a tenant meets is its key's own (callRequestsPerKeyPerMinute, shared/calls/call-lead.ts).
  // A flood without a key is refused by the function before any write; a per-caller bound on it, in
  // front of the gateway, is the opt-in WAF rate rule of docs/deployment.md.
  throttle: {
    rateLimit: { name: 'callsThrottlingRateLimit', default: 200 },
    burstLimit: { name: 'callsThrottlingBurstLimit', default: 400 },
  },
  // A calls key's deliveries per minute: a whole number, from 1 to 100,000.
  settings: [{ ...callRequestsSetting, min: 1, max: 100_000, integer: true }],
  channel: { connectionField: 'call_number' },
  platformId: {
    ...callsWireNames.platformId,
    qualifiedBy: ['provider'],
    descriptions: { provider: 'A call’s record (endpoint `call`): the telephony provider.', call_id: 'A call’s record (endpoint `call`): the provider’s call id.' },
  },
  stack: { functionPath: ['CallLeadWebhook', 'Webhook'], integrationId: 'CallWebhookIntegration', monitoringName: 'calls' },
  banner: { label: 'Call webhook', note: 'GET or POST, {provider} exotel, knowlarity or generic, a key limited to calls in x-api-key or ?key=: {seed.callNumbers} number(s) in the seed; npm run admin -- add-call-number' },
  openapi: 'shared/calls/openapi.ts',
  admin: { routes: callNumberAdminRoutes },
  sampleEvents: ['events/call-exotel-passthru.json', 'events/call-knowlarity-hook.json'],
  namedOutside: {
    'seed/demo.json': whyNamed.seed,
    'docs/adding-a-lead-source.md': `${whyNamed.guide}: a scoped key, a function setting`,
    'docs/decisions/0008-iam-check-and-runtime-client.md': whyNamed.decision,
    ...docsByReader('docs/data-model.md', 'docs/deployment.md', 'docs/reference.md', 'docs/reliability.md', 'docs/configuration.md', 'docs/sending-leads.md'),
  },
} as const satisfies LeadSourceDescriptor;
