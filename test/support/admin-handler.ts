/**
 * The admin API's Lambda handler called as API Gateway calls it after IAM authorization: the matched
 * route's key, decoded path parameters and query string, as the HTTP API hands them on.
 */
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../../shared/http/lambda.ts';
import { routeKeyOf } from '../../shared/routes.ts';
import { matchAdminPath } from '../../shared/admin-routes.ts';
import { asFunction } from './aws-calls.ts';
import type { Answer, TestService } from './service.ts';

export interface AdminCallOptions {
  /** A body sent as it is (not JSON of `body`). */
  readonly rawBody?: string;
  /** The function's timeout as its Lambda context counts it down. */
  readonly timeoutMs?: number;
  /** Who signed the request, as API Gateway's IAM authorization says; TEST_ADMIN_PRINCIPAL unless given. */
  readonly iam?: { readonly accessKey: string; readonly userArn?: string };
}

/** The IAM principal the admin API's tests sign as. */
export const TEST_ADMIN_PRINCIPAL = { accessKey: 'AKIATESTADMIN0000001', userArn: 'arn:aws:iam::111122223333:user/crm-backend' } as const;

/** One request to an admin handler; `pathAndQuery` may carry a query string. */
export const adminCall = async (
  run: ReturnType<typeof adminHandler>,
  method: string,
  pathAndQuery: string,
  body?: unknown,
  { rawBody, timeoutMs, iam = TEST_ADMIN_PRINCIPAL }: AdminCallOptions = {},
): Promise<Answer> => {
  const [path, query = ''] = pathAndQuery.split('?') as [string, string?];
  const match = matchAdminPath(path);
  const route = match?.routes.find((r) => r.method === method);
  if (!match || !route) throw new Error(`no admin route ${method} ${path}`);
  const text = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  const event = apiGatewayEvent({
    method,
    path,
    headers: { 'content-type': 'application/json' },
    ...(text !== undefined && { body: text }),
    routeKey: routeKeyOf(route),
    pathParameters: match.pathParameters,
    ...(query && { rawQueryString: query }),
    iam,
  });
  const response = (await asFunction('admin', () => run(event, lambdaContext('admin', timeoutMs) as LeadContext))) as LeadResponse;
  return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
};

/** The admin API on a test service's stores. */
export const adminApi = (service: TestService) => {
  const handler = adminHandler(adminRuntime(service.repository, () => undefined));
  return (method: string, pathAndQuery: string, body?: unknown): Promise<Answer> => adminCall(handler, method, pathAndQuery, body);
};
