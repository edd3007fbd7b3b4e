/** The WhatsApp webhook's wiring (shared/webhook-runtime.ts): its connected numbers, its conversations' claims, the Meta app's secrets, its window. */
import { claimItemsOf, DynamoDbClaimReader } from '../dynamodb/delivery-claims.ts';
import { DynamoDbLeadStore } from '../dynamodb/leads.ts';
import { connectionGuardItem } from '../dynamodb/connection-items.ts';
import { DynamoDbRejectionLog } from '../dynamodb/rejections.ts';
import { rejectionLogOptionsFromEnvironment } from '../runtime.ts';
import { DynamoDbConnectionReader } from '../dynamodb/connections.ts';
import { ConnectionDirectory } from '../intake/connection-directory.ts';
import { metaAppSecretsFromEnvironment } from '../meta-app.ts';
import { connectionWebhookRuntime } from '../webhook-runtime.ts';
import { conversationDaysFromEnvironment } from './intake-source.ts';
import { whatsappNumberConnectionKey } from './wire-names.ts';
import type { WhatsAppWebhookRuntime } from './webhook-handler.ts';

// Its lead store and rejection log take its conversations' claims in their writes (the other lead functions' do not carry that).
const runtime = connectionWebhookRuntime((db, configTable, ttlMs, { leadsTable, env }) => ({
  leads: new DynamoDbLeadStore(db, leadsTable, undefined, undefined, connectionGuardItem(configTable), claimItemsOf(leadsTable)),
  rejections: new DynamoDbRejectionLog(db, leadsTable, rejectionLogOptionsFromEnvironment(env), undefined, connectionGuardItem(configTable), claimItemsOf(leadsTable)),
  connections: new ConnectionDirectory(new DynamoDbConnectionReader(db, configTable, whatsappNumberConnectionKey), { ttlMs }),
  claims: new DynamoDbClaimReader(db, leadsTable),
  secrets: metaAppSecretsFromEnvironment(env),
  settings: { conversationDays: conversationDaysFromEnvironment(env) },
}));

export const whatsappWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => WhatsAppWebhookRuntime = runtime.fromEnvironment;
export const primedWhatsAppWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => Promise<WhatsAppWebhookRuntime> = runtime.primed;
