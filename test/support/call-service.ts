/**
 * The call webhook on a test service (test/support/service.ts): its handler on the same stores and
 * caches (and the per-key bound on the same table), numbers connected as `admin add-call-number` connects them, calls keys made as `admin
 * create-key --endpoints calls` makes them, and deliveries sent as each provider sends them.
 */
import { randomUUID } from 'node:crypto';
import { callNumberConnections } from '../../shared/calls/connections.ts';
import { callRequestsSetting } from '../../shared/calls/wire-names.ts';
import { ConnectionDirectory } from '../../shared/intake/connection-directory.ts';
import { connectConnection, removeConnection, type ConnectionAdminDependencies } from '../../shared/domain/connection-admin.ts';
import { callWebhookHandler } from '../../shared/calls/webhook-handler.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { DynamoDbKeyRequestRate } from '../../shared/dynamodb/request-rates.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../../shared/http/lambda.ts';
import { asFunction } from './aws-calls.ts';
import { testService, type Answer, type ServiceOptions, type TestService } from './service.ts';

export interface CallDeliveryParts {
  readonly provider?: string;
  readonly method?: 'GET' | 'POST';
  /** Sent as the query string (besides `key`). */
  readonly query?: Record<string, string>;
  /** Sent as a form-encoded body. */
  readonly form?: Record<string, string>;
  /** Sent as a JSON body (as is: numbers stay numbers). */
  readonly json?: Record<string, unknown>;
  /** The key in `x-api-key`. */
  readonly headerKey?: string;
  /** The key as `?key=`. */
  readonly queryKey?: string;
  readonly headers?: Record<string, string>;
  /** A body sent as is. */
  readonly rawBody?: string;
}

let sequence = 0;
/** A fresh call id, as long as providers' ids are. */
export const callId = () => `call-${Date.now().toString(36)}-${(sequence++).toString(36)}-${randomUUID().slice(0, 8)}`;
/** A fresh 10-digit project number. */
export const projectNumber = () => `80${String(Date.now() % 1e4).padStart(4, '0')}${String(sequence++ % 10_000).padStart(4, '0')}`;

export interface CallServiceOptions extends ServiceOptions {
  /** The webhook's clock (the minute a key's deliveries count in, a lead's created_at); the real one by default. */
  readonly now?: () => Date;
}

export const callTestService = async (options: CallServiceOptions = {}) => {
  const service = await testService(options);
  return { ...service, ...callWebhookOn(service, options) };
};

// The one connection lifecycle, for call numbers, in the words these tests speak (a number, not an id).
type NumberInput = { readonly accountId: string; readonly number: string; readonly projectId: string; readonly campaignId: string };
export const connectCallNumber = async (deps: ConnectionAdminDependencies, { number, ...input }: NumberInput) => {
  const { created, connection } = await connectConnection(callNumberConnections, deps, { ...input, id: number });
  return { created, number: connection };
};
export const removeCallNumber = (deps: ConnectionAdminDependencies, accountId: string, number: string) => removeConnection(callNumberConnections, deps, number, accountId);

/**
 * The call webhook on a test service built already (the model-based test's, which also serves Google):
 * its handler on that service's stores, caches and log lines.
 */
export const callWebhookOn = (service: TestService, options: CallServiceOptions = {}) => {
  const callNumbers = new ConnectionDirectory(service.repository.connections(callNumberConnections), { ttlMs: (options.configCacheTtlSeconds ?? 30) * 1000 });
  const keyRequests = new DynamoDbKeyRequestRate(createDocumentClient({ client: service.client }), service.tables.leads, options.callRequestsPerKeyPerMinute ?? callRequestsSetting.default);
  const runtime = { ...service.runtime, connections: callNumbers, keyRequests, ...(options.now && { now: options.now }) };
  const handler = callWebhookHandler(runtime);
  const numberAdmin: ConnectionAdminDependencies = { connections: service.repository.connections(callNumberConnections), accounts: service.repository.accounts };

  /** Connects a number as `admin add-call-number` does. */
  const connectNumber = async (accountId: string, number: string, projectId = 'PRJ-1', campaignId = 'CMP-1') => {
    await connectCallNumber(numberAdmin, { accountId, number, projectId, campaignId });
  };

  /** A key limited to calls, as `admin create-key --account ID --endpoints calls` makes it. */
  const callsKey = async (accountId: string) => (await service.issueScopedKey({ accountId, endpoints: ['calls'] })).key;

  /** One delivery as the provider sends it, through the handler as API Gateway invokes it. */
  const deliver = async (parts: CallDeliveryParts): Promise<Answer> => {
    const provider = parts.provider ?? 'generic';
    const query = new URLSearchParams(parts.query ?? {});
    if (parts.queryKey !== undefined) query.set('key', parts.queryKey);
    const body = parts.rawBody ?? (parts.json ? JSON.stringify(parts.json) : parts.form ? new URLSearchParams(parts.form).toString() : undefined);
    const contentType = parts.json ? 'application/json' : parts.form ? 'application/x-www-form-urlencoded' : undefined;
    const headers = { ...(contentType && { 'content-type': contentType }), ...(parts.headerKey !== undefined && { 'x-api-key': parts.headerKey }), ...parts.headers };
    const method = parts.method ?? (body === undefined ? 'GET' : 'POST');
    const path = `/api/call-lead-webhook/${provider}`;
    const event = apiGatewayEvent({
      method,
      path,
      routeKey: `${method} /api/call-lead-webhook/{provider}`,
      pathParameters: { provider },
      rawQueryString: query.toString(),
      headers,
      ...(body !== undefined && { body }),
    });
    const response = (await asFunction('calls', () => handler(event, lambdaContext('call-lead-webhook', options.functionTimeoutMs) as LeadContext))) as LeadResponse;
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
  };

  const leadsOf = (accountId: string, projects: string[] = ['PRJ-1']) => service.repository.leadArchive.listLeads(accountId, projects);
  const rejectionsOf = (accountId: string) => service.repository.rejections.listRejections(accountId);

  return { callNumbers, callRuntime: runtime, handler, numberAdmin, connectNumber, callsKey, deliver, leadsOf, rejectionsOf };
};

export type CallTestService = Awaited<ReturnType<typeof callTestService>>;
