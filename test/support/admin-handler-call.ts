/**
 * The admin function called as API Gateway calls it after IAM has let the request through: the
 * matched route's key and decoded path parameters, as the HTTP API hands them on.
 */
import type { adminHandler } from '../../shared/http/admin-handler.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../../shared/http/lambda.ts';
import { matchAdminPath, routeKeyOf } from '../../shared/routes.ts';
import type { Answer } from './service.ts';

export const adminCall = async (
  run: ReturnType<typeof adminHandler>,
  method: string,
  path: string,
  body?: unknown,
  { rawBody }: { rawBody?: string } = {},
): Promise<Answer> => {
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
  });
  const response = (await run(event, lambdaContext('admin') as LeadContext)) as LeadResponse;
  return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
};
