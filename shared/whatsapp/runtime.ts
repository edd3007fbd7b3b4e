/** The WhatsApp webhook's wiring (shared/webhook-runtime.ts): its connected numbers, its conversations' claims, the Meta app's secrets, its window. */
import { DynamoDbClaimReader } from '../dynamodb/delivery-claims.ts';
import { DynamoDbConnectionReader } from '../dynamodb/connections.ts';
import { metaAppSecretsFromEnvironment } from '../meta-app.ts';
import { connectionWebhookRuntime } from '../webhook-runtime.ts';
import { WhatsAppNumberDirectory } from './chat.ts';
import { conversationDaysFromEnvironment } from './intake-source.ts';
import type { WhatsAppWebhookRuntime } from './webhook-handler.ts';
import { whatsappConversationSetting, whatsappNumberConnectionKey } from './wire-names.ts';

const runtime = connectionWebhookRuntime((db, configTable, ttlMs, { leadsTable, env }) => ({
  numbers: new WhatsAppNumberDirectory(new DynamoDbConnectionReader(db, configTable, whatsappNumberConnectionKey), { ttlMs }),
  claims: new DynamoDbClaimReader(db, leadsTable),
  secrets: metaAppSecretsFromEnvironment(env),
  settings: { conversationDays: conversationDaysFromEnvironment(env, whatsappConversationSetting.environment, whatsappConversationSetting.default) },
}));

export const whatsappWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => WhatsAppWebhookRuntime = runtime.fromEnvironment;
export const primedWhatsAppWebhookRuntimeFromEnvironment: (env?: NodeJS.ProcessEnv) => Promise<WhatsAppWebhookRuntime> = runtime.primed;
