/**
 * The Google Ads lead form webhook for one test file: its handler over this file's tables on DynamoDB
 * Local, sharing the test service's lead runtime (and its captured log lines and round-trip counter),
 * forms connected as `admin add-google-form` connects them, and deliveries shaped like Google's own.
 */
import { connectGoogleForm } from '../../shared/domain/google-forms.ts';
import { KeyedConnectionDirectory } from '../../shared/intake/keyed-connection-directory.ts';
import { googleAdsHandler } from '../../shared/google/webhook-handler.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../../shared/http/lambda.ts';
import { googleAdsRoute } from '../../shared/sources/registry.ts';
import { asFunction } from './aws-calls.ts';
import { testService, type Answer, type ServiceOptions } from './service.ts';

export interface GoogleColumnData {
  readonly column_id?: string;
  readonly column_name?: string;
  readonly string_value?: string;
}

export interface DeliveryParts {
  readonly leadId?: string | null;
  /** Digits, written into the JSON as a number (exactly, whatever its size). */
  readonly formId?: string | null;
  readonly key?: string | null;
  readonly campaignId?: string;
  readonly adgroupId?: string;
  readonly creativeId?: string;
  readonly gclId?: string;
  readonly isTest?: boolean;
  readonly columns?: readonly GoogleColumnData[];
}

let sequence = 0;
/** A lead id of Google's shape (Google's own are long base64-like strings), unique per call. */
export const googleLeadId = () => `TeSter-${Date.now().toString(36)}-${(sequence++).toString(36)}-AbCdEfGhIjKlMnOpQrStUvWxYz`;

export const standardColumns = (mobile: string, extra: readonly GoogleColumnData[] = []): GoogleColumnData[] => [
  { column_id: 'FULL_NAME', column_name: 'Full Name', string_value: 'Asha Verma' },
  { column_id: 'PHONE_NUMBER', column_name: 'User Phone', string_value: `+91${mobile}` },
  ...extra,
];

/**
 * A delivery's JSON text as Google writes it: the ids as JSON numbers of their exact digits (which
 * JSON.stringify of a JavaScript number could not write past 2^53).
 */
export const deliveryJson = (parts: DeliveryParts): string => {
  const number = (digits: string | null | undefined) => (digits == null ? undefined : `#INT#${digits}#`);
  const body = {
    ...(parts.leadId !== null && { lead_id: parts.leadId ?? googleLeadId() }),
    user_column_data: parts.columns ?? [],
    api_version: '1.0',
    ...(parts.formId != null && { form_id: number(parts.formId) }),
    ...(parts.campaignId && { campaign_id: number(parts.campaignId) }),
    ...(parts.adgroupId && { adgroup_id: number(parts.adgroupId) }),
    ...(parts.creativeId && { creative_id: number(parts.creativeId) }),
    ...(parts.gclId && { gcl_id: parts.gclId }),
    ...(parts.key != null && { google_key: parts.key }),
    is_test: parts.isTest ?? false,
  };
  return JSON.stringify(body).replace(/"#INT#(\d+)#"/g, '$1');
};

export const googleTestService = async (options: ServiceOptions = {}) => {
  const service = await testService(options);
  const forms = new KeyedConnectionDirectory(service.repository.googleForms, { ttlMs: (options.configCacheTtlSeconds ?? 30) * 1000 });
  const handler = googleAdsHandler({ ...service.runtime, connections: forms });
  const formAdmin = { forms: service.repository.googleForms, accounts: service.repository.accounts };

  /** Connects a form as `admin add-google-form` does; returns its key. */
  const connectForm = async (accountId: string, formId: string, projectId = 'PRJ-1', campaignId = 'CMP-1') => {
    const { form } = await connectGoogleForm(formAdmin, { accountId, formId, projectId, campaignId });
    return form.key!;
  };

  /** POSTs a delivery as Google does. */
  const deliver = async (body: DeliveryParts | string, { headers = { 'content-type': 'application/json' } }: { headers?: Record<string, string> } = {}): Promise<Answer> => {
    const text = typeof body === 'string' ? body : deliveryJson(body);
    const event = apiGatewayEvent({ method: 'POST', path: googleAdsRoute.path, headers, body: text });
    const response = (await asFunction('google-ads', () => handler(event, lambdaContext('google-ads', options.functionTimeoutMs) as LeadContext))) as LeadResponse;
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
  };

  const leadsOf = (accountId: string, projects: string[] = ['PRJ-1']) => service.repository.leads.listLeads(accountId, projects);
  const rejectionsOf = (accountId: string) => service.repository.rejections.listRejections(accountId);

  return { ...service, forms, formAdmin, handler, connectForm, deliver, leadsOf, rejectionsOf };
};

export type GoogleTestService = Awaited<ReturnType<typeof googleTestService>>;
