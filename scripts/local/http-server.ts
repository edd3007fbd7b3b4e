/**
 * The local HTTP front of the lead handlers: plays API Gateway's part. Routes come from the source
 * registry the CDK stack uses (shared/sources/registry.ts); each request becomes the payload 2.0 event API Gateway sends (lower-cased headers,
 * request id, source IP, a body that is not UTF-8 text base64-encoded), and the handler's answer is
 * written back as it is.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext } from '../../shared/http/lambda.ts';
import { ADMIN_BASE_PATH, FUNCTION_TIMEOUT_SECONDS, pathTemplate, routeKeyOf } from '../../shared/routes.ts';
import { matchAdminPath } from '../../shared/admin-routes.ts';
import { checkAdminSignature, describeRefusal, safeTarget, type AdminCredentials } from './admin-auth.ts';
import { leadSources } from '../../shared/sources/registry.ts';
import { MAX_BODY_BYTES } from '../../shared/intake/steps.ts';
import { MAX_ADMIN_BODY_BYTES } from '../../shared/http/admin-handler.ts';
import { localFunctionName, type LambdaHandler, type LeadHandlers } from './environment.ts';
import { serveDocs } from './docs-routes.ts';

/**
 * Bytes of a body the server reads, to protect the process: the largest any route accepts (the
 * registry's bounds: WhatsApp's 3 MiB, section 1's 64 KiB, the admin API's), and one more, so that
 * each handler sees a body it takes whole and answers 413 to one over its own bound, as deployed
 * (API Gateway hands a function up to 6 MB). A larger body is handed on cut here, still too large.
 */
export const MAX_READ_BYTES = Math.max(MAX_BODY_BYTES, MAX_ADMIN_BODY_BYTES, ...leadSources.map((source) => source.maxBodyBytes ?? MAX_BODY_BYTES));

/** The admin API (CONTRACT.md section 9), behind the signature check the HTTP API's IAM authorizer makes. */
export interface LocalAdminApi {
  readonly handler: LambdaHandler;
  readonly credentials: AdminCredentials;
  /** The region signatures must name; any when undefined (AWS_REGION unset). */
  readonly region?: string;
  /**
   * Told of each request refused for its signature, in one line: the method, the path and the query
   * (values redacted but the page size and reason), and why (admin-auth.ts describeRefusal).
   */
  readonly onRefused?: (line: string) => void;
}

export interface LocalServerOptions {
  /** The handler of each declared source it serves, by the source's name (`website`, `google_ads`, `meta`): each on its route's path and methods. */
  readonly handlers: LeadHandlers;
  /** The function timeout each request gets, as in Lambda (default: the stack's). */
  readonly functionTimeoutMs?: number;
  readonly admin?: LocalAdminApi;
  /** Called when a handler throws (it should never: the envelope middleware answers every error). */
  readonly onHandlerError?: (error: unknown) => void;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
};

/** Reads the body, keeping at most `limit + 1` bytes; the rest is drained and dropped. */
const readBody = (request: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    request.on('data', (chunk: Buffer) => {
      if (kept > limit) return;
      const part = chunk.subarray(0, limit + 1 - kept);
      chunks.push(part);
      kept += part.length;
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

/** API Gateway joins repeated headers with commas. */
const headersOf = (request: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
};

/** A body as API Gateway hands it on: absent when empty, text when it is UTF-8, else base64 (a Buffer). */
const bodyOf = (raw: Buffer): string | Buffer | undefined => {
  if (raw.length === 0) return undefined;
  try {
    return utf8.decode(raw);
  } catch {
    return raw;
  }
};

/** Writes a handler's answer back as it is. */
const send = (response: ServerResponse, answer: { statusCode: number; headers: Record<string, string>; body?: string }) => {
  const payload = answer.body ?? '';
  response.writeHead(answer.statusCode, { ...answer.headers, 'content-length': Buffer.byteLength(payload) });
  response.end(payload);
};

/** What API Gateway answers when the function did not answer in time (no envelope, no request id). */
export const PLATFORM_TIMEOUT_BODY = { message: 'Internal Server Error' };

/**
 * A handler's answer, or `undefined` once the function's timeout has passed: Lambda would have
 * stopped the function there, whatever it was still doing.
 */
const withinTimeout = async <T>(answer: Promise<T>, timeoutMs: number): Promise<T | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([answer, timedOut]);
  } finally {
    clearTimeout(timer);
  }
};

/** What the HTTP API answers itself: no route (404), or a request its IAM authorizer refuses (403). */
const notFound = (response: ServerResponse) => json(response, 404, { message: 'Not Found' });
const forbidden = (response: ServerResponse) => json(response, 403, { message: 'Forbidden' });

/**
 * An admin request, as API Gateway takes it: the route first (none: 404), then the signature (bad:
 * 403), then the function, with the route key and path parameters of the matched route.
 */
const serveAdmin = async (admin: LocalAdminApi | undefined, method: string, pathname: string, request: IncomingMessage, response: ServerResponse) => {
  const match = matchAdminPath(pathname);
  const route = match?.routes.find((r) => r.method === method);
  if (!admin || !match || !route) {
    request.resume();
    return notFound(response);
  }
  const raw = await readBody(request, MAX_READ_BYTES);
  const headers = headersOf(request);
  const url = request.url ?? pathname;
  const check = await checkAdminSignature({ method, url, headers, body: raw }, admin);
  if (!check.signed) {
    admin.onRefused?.(`403 ${method} ${safeTarget(url)}: ${describeRefusal(check.refusal)}`);
    return forbidden(response);
  }
  const body = bodyOf(raw);
  const event = apiGatewayEvent({
    method,
    path: pathname,
    headers,
    ...(body !== undefined && { body }),
    sourceIp: (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
    requestId: randomUUID(),
    routeKey: routeKeyOf(route),
    pathParameters: match.pathParameters,
    rawQueryString: url.split('?')[1] ?? '',
    // Who signed: the local credentials have an access key id and no IAM principal ARN (CONTRACT.md section 18).
    iam: { accessKey: admin.credentials.accessKeyId },
  });
  const answer = await admin.handler(event, lambdaContext('lead-intake-admin') as LeadContext);
  const payload = answer.body ?? '';
  response.writeHead(answer.statusCode, { ...answer.headers, 'content-length': Buffer.byteLength(payload) });
  response.end(payload);
};

/** `127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT`, the port being the one the request came in on. */
export const isLoopbackHost = (host: string | undefined, port: number | undefined): boolean =>
  host !== undefined && port !== undefined && [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase());

/**
 * How long an idle keep-alive connection stays open. Node's 5 s default races the clients that pool
 * connections: undici (fetch) keeps one for the server's hint less 1 s, and a client whose event loop
 * is busy sends on it late, into a socket the server has just closed ("other side closed"). API Gateway
 * keeps idle connections open far longer than 5 s too.
 */
export const IDLE_KEEP_ALIVE_MS = 65_000;

/**
 * The pathname and query of a request target. A plain path (letters, digits, `-`, `_` between single
 * slashes: every lead route) is its own pathname; anything else goes through the WHATWG URL parser,
 * which resolves dot segments and percent-encoding as before.
 */
const PLAIN_PATH = /^(?:\/[\w-]+)+\/?$|^\/$/;
export const targetOf = (url: string): { pathname: string; search: string } => {
  if (PLAIN_PATH.test(url)) return { pathname: url, search: '' };
  const { pathname, search } = new URL(url, 'http://localhost');
  return { pathname, search };
};

export const createLocalServer = ({ handlers, admin, functionTimeoutMs = FUNCTION_TIMEOUT_SECONDS * 1000, onHandlerError }: LocalServerOptions): Server => {
  /**
   * The declared sources this server has a handler for, in the registry's order, each with its
   * function's name, its route's methods and its path matcher, built once rather than per request.
   */
  const served = leadSources.flatMap((source) => {
    const handler = handlers[source.name];
    if (!handler) return [];
    const template = source.route.path;
    return [{ name: localFunctionName(source), handler, methods: source.route.methods as readonly string[], queryString: source.route.queryString === true, template, match: pathTemplate(template) }];
  });
  /**
   * The source whose route is the path: its function's name, its handler and its route's methods, and,
   * for a route with path parameters (the call webhook's `{provider}`), its template and the parameters.
   */
  const routeTarget = (pathname: string) => {
    for (const target of served) {
      const pathParameters = target.template === pathname ? {} : target.match(pathname);
      if (pathParameters) return { ...target, pathParameters };
    }
    return undefined;
  };
  return Object.assign(createServer(async (request, response) => {
    /** Runs a handler as Lambda would, with the function's timeout, and answers as API Gateway would past it. */
    const answerInTime = async (name: string, handler: LambdaHandler, event: ReturnType<typeof apiGatewayEvent>) => {
      const answer = await withinTimeout(handler(event, lambdaContext(name, functionTimeoutMs) as LeadContext), functionTimeoutMs);
      if (answer) return send(response, answer);
      // The service's own deadline should never let this happen; if it does, the local run shows
      // what API Gateway would send, not a late answer Lambda would never have delivered.
      onHandlerError?.(new Error(`the ${name} handler did not answer within the function timeout (${functionTimeoutMs} ms)`));
      return json(response, 500, PLATFORM_TIMEOUT_BODY);
    };
    // DNS rebinding: a web page whose name now resolves to 127.0.0.1 still sends its own Host, so only
    // the loopback names of this port are served (the local admin API's default secret is public).
    if (!isLoopbackHost(request.headers.host, request.socket.localPort)) {
      request.resume();
      return json(response, 403, { status: false, message: 'Host not allowed' }, { 'x-request-id': randomUUID() });
    }
    try {
      const method = (request.method ?? 'GET').toUpperCase();
      const { pathname, search } = targetOf(request.url ?? '/');
      if (pathname === ADMIN_BASE_PATH || pathname.startsWith(`${ADMIN_BASE_PATH}/`)) return await serveAdmin(admin, method, pathname, request, response);
      const target = routeTarget(pathname);
      if (!target) {
        request.resume();
        if (await serveDocs(method, pathname, response)) return;
        return json(response, 404, { status: false, message: 'Not found' });
      }
      if (!target.methods.includes(method)) {
        request.resume();
        return json(response, 405, { status: false, message: 'Method not allowed' }, { allow: target.methods.join(', ') });
      }
      const body = bodyOf(await readBody(request, MAX_READ_BYTES));
      const event = apiGatewayEvent({
        method,
        path: pathname,
        ...(target.template !== pathname && { routeKey: `${method} ${target.template}`, pathParameters: target.pathParameters }),
        ...(target.queryString && { rawQueryString: search.slice(1) }),
        headers: headersOf(request),
        ...(body !== undefined && { body }),
        sourceIp: (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
        requestId: randomUUID(),
      });
      return await answerInTime(target.name, target.handler, event);
    } catch (error) {
      onHandlerError?.(error);
      if (!response.headersSent) json(response, 500, { status: false, message: 'Lead could not be created' });
      else response.destroy();
    }
  }), { keepAliveTimeout: IDLE_KEEP_ALIVE_MS });
};
