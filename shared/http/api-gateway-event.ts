/**
 * API Gateway HTTP API events (payload format 2.0), built the way the deployed API builds them: for
 * the local server, `npm run invoke` and the tests, so the handlers only ever see one event shape.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { FUNCTION_TIMEOUT_SECONDS } from '../routes.ts';
import type { LeadEvent } from './lambda.ts';

export interface HttpRequestParts {
  readonly method?: string;
  readonly path: string;
  /** Header names as sent; API Gateway lower-cases them, and so does this. */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly body?: string | Buffer;
  readonly sourceIp?: string;
  readonly requestId?: string;
  /** The route's template when it has path parameters (`PUT /admin/v1/accounts/{accountId}`). */
  readonly routeKey?: string;
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly rawQueryString?: string;
  /** The signer, as API Gateway's IAM authorization puts it in the request context (`authorizer.iam`). */
  readonly iam?: { readonly accessKey: string; readonly userArn?: string };
}

export const apiGatewayEvent = ({
  method = 'POST',
  path,
  headers = {},
  body,
  sourceIp = '127.0.0.1',
  requestId = randomUUID(),
  routeKey = `${method} ${path}`,
  pathParameters,
  rawQueryString = '',
  iam,
}: HttpRequestParts): LeadEvent => {
  const lowerCased: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) lowerCased[name.toLowerCase()] = value;
  // API Gateway base64-encodes bodies it does not take for text; a Buffer stands for such a body.
  const isBase64Encoded = Buffer.isBuffer(body);
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString,
    headers: lowerCased,
    ...(rawQueryString && { queryStringParameters: queryParameters(rawQueryString) }),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: lowerCased.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp, userAgent: lowerCased['user-agent'] ?? '' },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      ...(iam && { authorizer: { iam: { accessKey: iam.accessKey, userArn: iam.userArn ?? null, accountId: null, callerId: null, principalOrgId: null, userId: null, cognitoIdentity: null } } }),
    },
    ...(pathParameters && { pathParameters: { ...pathParameters } }),
    ...(body !== undefined && { body: isBase64Encoded ? body.toString('base64') : body }),
    isBase64Encoded,
  };
};

/**
 * A Lambda context for in-process invocations: its `getRemainingTimeInMillis()` counts down from the
 * function's timeout as Lambda's does, and the handler's deadline is taken from it.
 */
export const lambdaContext = (functionName: string, timeoutMs = FUNCTION_TIMEOUT_SECONDS * 1000): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

/** API Gateway's decoded query parameters: repeated names joined with commas. */
const queryParameters = (query: string): Record<string, string> => {
  const parameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(query)) parameters[name] = name in parameters ? `${parameters[name]},${value}` : value;
  return parameters;
};
