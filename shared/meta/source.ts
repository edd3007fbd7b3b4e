/**
 * Meta Lead Ads (CONTRACT.md section 8) as a declared source: the asynchronous one. Its webhook checks
 * Meta's signature and queues each leadgen change; the worker behind the queue reads the lead from the
 * Graph API (graph.ts, lead-mapping.ts) and makes it a `social` lead (leadgen.ts). Its queue, worker,
 * secrets and page-token key are its own construct's (lib/constructs/meta-lead-ads.ts). The names its worker reads are wire-names.ts's. For the tools:
 * its OpenAPI (openapi.ts) and its seed member (seed.ts).
 */
import type { LeadSourceDescriptor } from '../sources/descriptor.ts';
import { docsByReader, whyNamed } from '../sources/named-outside.ts';
import { metaWireNames } from './wire-names.ts';

export const metaSource = {
  ...metaWireNames,
  invokeName: 'meta',
  title: 'Meta Lead Ads',
  brief: 'Facebook and Instagram lead ads',
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
  namedOutside: {
    'shared/dynamodb/lead-items.ts':
      "its leads' page (meta_page_id, its channel's connection field), a stored attribute kept out of the lead record by every lead bundle's projection: reading it from this declaration would put the registry in every lead function",
    'shared/sealed-secrets.ts': "its page tokens' KMS key (META_PAGE_TOKEN_KEY_ID, a deployed setting name) and encryption context (meta_page_id, bound into stored ciphertexts), which the challenge secrets share",
    'shared/meta-app.ts': whyNamed.signingApp,
    'shared/meta-app-local.ts': whyNamed.signingApp,
    'shared/meta-app-openapi.ts': whyNamed.signingApp,
    'shared/whatsapp/openapi.ts': whyNamed.signingApp,
    'shared/whatsapp/runtime.ts': whyNamed.signingApp,
    'shared/whatsapp/source.ts': whyNamed.signingApp,
    'shared/whatsapp/webhook-handler.ts': whyNamed.signingApp,
    'scripts/start.ts': whyNamed.signingApp,
    'scripts/invoke.ts': `${whyNamed.signingApp} (WhatsApp's events signed with the app's local secrets)`,
    'docs/sources/whatsapp.md': whyNamed.signingApp,
    'scripts/admin/meta.ts': 'its admin CLI verbs (adminCli) for pages and form mappings: its own, not a connection kind of the one lifecycle (a page carries a sealed token)',
    'seed/demo.json': whyNamed.seed,
    'docs/adding-a-lead-source.md': `${whyNamed.guide}: an asynchronous source, its worker and wiring`,
    'docs/decisions/0008-iam-check-and-runtime-client.md': whyNamed.decision,
    ...docsByReader('docs/data-model.md', 'docs/deployment.md', 'docs/reference.md', 'docs/configuration.md', 'docs/running-locally.md', 'docs/how-it-is-built.md', 'docs/performance.md'),
  },
  smoke: { check: 'Meta webhook refuses a wrong verify token', method: 'GET', query: 'hub.mode=subscribe&hub.verify_token=smoke-wrong-{random}&hub.challenge=12345', status: 403 },
} as const satisfies LeadSourceDescriptor;
