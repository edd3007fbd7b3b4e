/**
 * The WhatsApp webhook on a test service (test/support/service.ts): its handler on the same stores and
 * caches, numbers connected through the connection store (as their lifecycle stores them), and
 * notifications signed as Meta signs them.
 */
import { randomUUID } from 'node:crypto';
import { claimWritesOf, DynamoDbClaimReader } from '../../shared/dynamodb/delivery-claims.ts';
import { claimCheckOf } from '../../shared/intake/delivery-claims.ts';
import { connectionGuardItem } from '../../shared/dynamodb/connection-items.ts';
import { DynamoDbLeadStore } from '../../shared/dynamodb/leads.ts';
import { DynamoDbRejectionLog } from '../../shared/dynamodb/rejections.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../../shared/http/lambda.ts';
import { signatureOf } from '../../shared/meta-app.ts';
import { ConnectionDirectory } from '../../shared/intake/connection-directory.ts';
import { whatsappNumberConnectionKey } from '../../shared/whatsapp/wire-names.ts';
import { whatsappWebhookHandler } from '../../shared/whatsapp/webhook-handler.ts';
import { asFunction } from './aws-calls.ts';
import { testService, type Answer, type ServiceOptions, type TestService } from './service.ts';

export const WHATSAPP_APP_SECRET = 'whatsapp-test-app-secret';
export const WHATSAPP_VERIFY_TOKEN = 'whatsapp-test-verify-token';
export const WHATSAPP_PATH = '/api/whatsapp-webhook';

let sequence = 0;
/** A fresh Meta phone number id (digits, as Meta's are). */
export const phoneNumberId = () => `10${Date.now() % 1e9}${String(sequence++).padStart(4, '0')}`;
/** A fresh message id, shaped like Meta's `wamid.`. */
export const messageId = () => `wamid.${randomUUID().replaceAll('-', '')}${(sequence++).toString(36)}`;
/** Meta's `from` of an Indian mobile: 91 and the 10 digits. */
export const fromOf = (mobile: string) => `91${mobile}`;

export interface MessageParts {
  readonly id?: string;
  /** Meta's digits with country code; undefined with `fromUserId` for a withheld number. */
  readonly from?: string;
  /** A username sender's id, as Meta sends it (`from_user_id`). */
  readonly fromUserId?: string;
  /** The older name of the same id (`user_id`). */
  readonly userId?: string;
  /** Seconds since the epoch; now by default. */
  readonly timestamp?: number;
  readonly type?: string;
  readonly text?: string;
  readonly referral?: Record<string, unknown>;
  /** Any other member of the message (button, interactive, image...). */
  readonly extra?: Record<string, unknown>;
}

/** A message object as Meta sends it. */
export const message = ({ id = messageId(), from, fromUserId, userId, timestamp = Math.floor(Date.now() / 1000), type = 'text', text = 'Hi, is the 2 BHK available?', referral, extra }: MessageParts) => ({
  ...(from !== undefined && { from }),
  ...(fromUserId !== undefined && { from_user_id: fromUserId }),
  ...(userId !== undefined && { user_id: userId }),
  id,
  timestamp: String(timestamp),
  type,
  ...(type === 'text' && { text: { body: text } }),
  ...(referral && { referral }),
  ...extra,
});

/** One `messages` change of a number: its contacts (a name per sender), its messages. */
export const change = (number: string, messages: readonly Record<string, unknown>[], names: Record<string, string> = {}) => ({
  field: 'messages',
  value: {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: '918047181234', phone_number_id: number },
    contacts: Object.entries(names).map(([waId, name]) => ({ profile: { name }, wa_id: waId })),
    messages,
  },
});

/** A WhatsApp Business Account notification of changes (one entry by default). */
export const notification = (...changes: readonly Record<string, unknown>[]) => ({ object: 'whatsapp_business_account', entry: [{ id: 'WABA-1', changes }] });

export interface WhatsAppServiceOptions extends ServiceOptions {
  /** The conversation window in days (`whatsappConversationDays`); 7 by default. */
  readonly conversationDays?: number;
}

export const whatsappTestService = async (options: WhatsAppServiceOptions = {}) => {
  const service = await testService(options);
  return { ...service, ...whatsappWebhookOn(service, options) };
};

export const whatsappWebhookOn = (service: TestService, options: WhatsAppServiceOptions = {}) => {
  const connections = new ConnectionDirectory(service.repository.connections(whatsappNumberConnectionKey), { ttlMs: (options.configCacheTtlSeconds ?? 30) * 1000 });
  const db = createDocumentClient({ client: service.client });
  const claims = claimCheckOf(new DynamoDbClaimReader(db, service.tables.leads));
  // Its lead store and rejection log take the conversations' claims in their writes, as its runtime's do (shared/whatsapp/runtime.ts).
  const claimWrites = claimWritesOf(service.tables.leads);
  const runtime = {
    ...service.runtime,
    leads: new DynamoDbLeadStore(db, service.tables.leads, options.retry, undefined, connectionGuardItem(service.tables.config), claimWrites),
    rejections: new DynamoDbRejectionLog(db, service.tables.leads, options.rejectionRecordsPerMinute === undefined ? undefined : { recordsPerMinute: options.rejectionRecordsPerMinute }, undefined, connectionGuardItem(service.tables.config), claimWrites),
    connections,
    claims,
    secrets: async () => ({ appSecret: WHATSAPP_APP_SECRET, verifyToken: WHATSAPP_VERIFY_TOKEN }),
    settings: { conversationDays: options.conversationDays ?? 7 },
  };
  const handler = whatsappWebhookHandler(runtime);
  const store = service.repository.connections(whatsappNumberConnectionKey);

  /** Connects a number as its lifecycle stores it (one number, one account). */
  const connectNumber = async (accountId: string, id: string, projectId = 'PRJ-1', campaignId = 'CMP-1') => {
    const connected = await store.insertConnection({ kind: whatsappNumberConnectionKey.kind, id, accountId, projectId, campaignId, connectedAt: new Date().toISOString() });
    if (!connected) throw new Error(`number ${id} is connected already`);
  };
  const removeNumber = (id: string) => store.removeConnection(id);

  /** A request as API Gateway invokes the function with it. */
  const request = async (parts: { method?: 'GET' | 'POST'; rawBody?: string | Buffer; headers?: Record<string, string>; rawQueryString?: string }): Promise<Answer> => {
    const method = parts.method ?? 'POST';
    const event = apiGatewayEvent({
      method,
      path: WHATSAPP_PATH,
      headers: parts.headers ?? {},
      ...(parts.rawBody !== undefined && { body: parts.rawBody }),
      ...(parts.rawQueryString !== undefined && { rawQueryString: parts.rawQueryString }),
    });
    const response = (await asFunction('whatsapp', () => handler(event, lambdaContext('whatsapp-webhook', options.functionTimeoutMs) as LeadContext))) as LeadResponse;
    const json = response.headers?.['content-type']?.startsWith('application/json');
    return { status: response.statusCode, headers: response.headers, body: response.body && json ? JSON.parse(response.body) : response.body };
  };

  /** A notification signed with the app secret, as Meta sends it. */
  const deliver = (body: unknown, secret = WHATSAPP_APP_SECRET) => {
    const rawBody = typeof body === 'string' ? body : JSON.stringify(body);
    return request({ rawBody, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signatureOf(rawBody, secret) } });
  };

  const leadsOf = (accountId: string, projects: string[] = ['PRJ-1']) => service.repository.leadArchive.listLeads(accountId, projects);
  const rejectionsOf = (accountId: string) => service.repository.rejections.listRejections(accountId);

  return { connections, whatsappRuntime: runtime, handler, connectNumber, removeNumber, request, deliver, leadsOf, rejectionsOf };
};

export type WhatsAppTestService = Awaited<ReturnType<typeof whatsappTestService>>;
