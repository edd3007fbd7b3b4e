/** The WhatsApp webhook's wiring (shared/webhook-runtime.ts): its connected numbers, its conversations' claims, the Meta app's secrets, its window. */
import { claimWritesOf, DynamoDbClaimReader } from '../dynamodb/delivery-claims.ts';
import { claimCheckOf } from '../intake/delivery-claims.ts';
import { DynamoDbConnectionReader } from '../dynamodb/connections.ts';
import { ConnectionDirectory } from '../intake/connection-directory.ts';
import { metaAppSecretsFromEnvironment } from '../meta-app.ts';
import { connectionWebhookRuntime } from '../webhook-runtime.ts';
import { conversationDaysFromEnvironment } from './intake-source.ts';
import { whatsappNumberConnectionKey } from './wire-names.ts';
import type { WhatsAppWebhookRuntime } from './webhook-handler.ts';

// Its lead store and rejection log take its conversations' claims in their writes, and the intake reads them
// before (strategies given here alone: the other lead functions' bundles carry none of it).
const runtime = connectionWebhookRuntime(
  (db, configTable, ttlMs, { leadsTable, env }) => ({
    connections: new ConnectionDirectory(new DynamoDbConnectionReader(db, configTable, whatsappNumberConnectionKey), { ttlMs }),
    claims: claimCheckOf(new DynamoDbClaimReader(db, leadsTable)),
    secrets: metaAppSecretsFromEnvironment(env),
    settings: { conversationDays: conversationDaysFromEnvironment(env) },
  }),
  { claims: claimWritesOf },
);

export const whatsappWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => WhatsAppWebhookRuntime = runtime.fromEnvironment;
export const primedWhatsAppWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => Promise<WhatsAppWebhookRuntime> = runtime.primed;
