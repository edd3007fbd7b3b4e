/**
 * Meta Lead Ads (CONTRACT.md section 8) as a declared source: the asynchronous one. Its webhook checks
 * Meta's signature and queues each leadgen change; the worker behind the queue reads the lead from the
 * Graph API (graph.ts, lead-mapping.ts) and makes it a `social` lead (leadgen.ts). Its queue, worker,
 * secrets and page-token key are its own construct's (lib/constructs/meta-lead-ads.ts). The names its worker reads are wire-names.ts's. For the tools:
 * its OpenAPI (openapi.ts) and its seed member (seed.ts).
 */
import type { LeadSourceDescriptor } from '../sources/descriptor.ts';
import { metaWireNames } from './wire-names.ts';

export const metaSource = {
  ...metaWireNames,
  invokeName: 'meta',
  title: 'Meta Lead Ads',
  route: { path: '/api/meta-leadgen-webhook', methods: ['GET', 'POST'], queryString: true },
  entry: 'functions/meta-webhook/handler.ts',
  bodyFormat: 'signed-json',
  authentication: 'platform-signature',
  browserFacing: false,
  channel: { connectionField: 'meta_page_id' },
  platformId: { ...metaWireNames.platformId, label: 'leadgen' },
  stack: { functionPath: ['MetaLeadAds', 'Webhook'], integrationId: 'MetaWebhookIntegration', monitoringName: 'metaWebhook' },
  worker: {
    entry: 'functions/meta-worker/handler.ts',
    functionPath: ['MetaLeadAds', 'Worker'],
    local: 'shared/meta/local.ts',
    wiring: ['lib/constructs/meta-lead-ads.ts', 'lib/lead-intake-stack.ts', 'bench/meta-worker.ts'],
  },
  banner: { label: 'Meta webhook', note: 'GET verification, signed POST; {seed.metaPages} page(s) in the seed; leads read from {graph}' },
  openapi: 'shared/meta/openapi.ts',
  adminCli: { module: 'scripts/admin/meta.ts', name: 'meta' },
  seed: { member: 'metaPages', module: 'shared/meta/seed.ts' },
  sampleEvents: ['events/meta-leadgen.json', 'events/meta-bad-signature.json'],
  smoke: { check: 'Meta webhook refuses a wrong verify token', method: 'GET', query: 'hub.mode=subscribe&hub.verify_token=smoke-wrong-{random}&hub.challenge=12345', status: 403 },
} as const satisfies LeadSourceDescriptor;
