/**
 * The admin API's Lambda handler on a test service's stores, called as API Gateway calls it after IAM
 * authorization: the matched route's key, path parameters and query string.
 */
import { adminRuntime } from '../../shared/admin-runtime.ts';
import { adminHandler } from '../../shared/http/admin-handler.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../../shared/http/lambda.ts';
import { matchAdminPath, routeKeyOf } from '../../shared/routes.ts';
import type { Answer, TestService } from './service.ts';

export const adminApi = (service: TestService) => {
  const handler = adminHandler(adminRuntime(service.repository, () => undefined));
  return async (method: string, pathAndQuery: string, body?: unknown): Promise<Answer> => {
    const [path, query = ''] = pathAndQuery.split('?') as [string, string?];
    const match = matchAdminPath(path);
    const route = match?.routes.find((r) => r.method === method);
    if (!match || !route) throw new Error(`no admin route ${method} ${path}`);
    const event = apiGatewayEvent({
      method,
      path,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      routeKey: routeKeyOf(route),
      pathParameters: match.pathParameters,
      rawQueryString: query,
    });
    const response = (await handler(event, lambdaContext('admin') as LeadContext)) as LeadResponse;
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
  };
};
