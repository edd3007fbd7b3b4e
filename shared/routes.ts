/**
 * The admin routes, the function timeout and the runtime settings: one source of truth for API Gateway
 * (lib/) and the local HTTP server. The lead sources' own routes are their descriptors'
 * (shared/sources/registry.ts). Paths, methods and status codes are fixed by the contract.
 */

export type EndpointName = 'website' | 'portala' | 'portalb' | 'social';

/**
 * Seconds a lead function may run: the stack's timeout (lib/constructs/lead-function.ts), and what
 * `npm start` and `npm run invoke` give each request (FUNCTION_TIMEOUT_SECONDS overrides it locally).
 * Every answer leaves the handler before it (shared/deadline.ts); API Gateway's own limit is 30 s.
 */
export const FUNCTION_TIMEOUT_SECONDS = 10;

/** What the admin function does for a route (CONTRACT.md section 9). */
export type AdminOperation =
  | 'getAccount'
  | 'putAccount'
  | 'putProject'
  | 'retireProject'
  | 'putCampaign'
  | 'retireCampaign'
  | 'createKey'
  | 'listKeys'
  | 'revokeKey'
  | 'rotateKey'
  | 'listRejections'
  | 'releaseRejection'
  | 'findPerson'
  | 'erasePerson'
  | 'connectGoogleForm'
  | 'listGoogleForms'
  | 'removeGoogleForm'
  | 'rotateGoogleFormKey'
  | 'connectCallNumber'
  | 'listCallNumbers'
  | 'removeCallNumber';

export interface AdminRoute {
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** API Gateway's path template: `{name}` is one path segment. */
  readonly path: string;
  readonly operation: AdminOperation;
}

/** The admin API: configuration in, for the CRM's backend, behind IAM (SigV4) authorization. */
export const ADMIN_BASE_PATH = '/admin/v1';
export const adminEntry = 'functions/admin/handler.ts';

// Whole literals: esbuild can drop them from the lead bundles, which import this module (a path built
// from ADMIN_BASE_PATH would be kept). The CDK and OpenAPI tests check each starts with ADMIN_BASE_PATH.
export const adminRoutes: readonly AdminRoute[] = [
  { method: 'GET', path: '/admin/v1/accounts/{accountId}', operation: 'getAccount' },
  { method: 'PUT', path: '/admin/v1/accounts/{accountId}', operation: 'putAccount' },
  { method: 'PUT', path: '/admin/v1/accounts/{accountId}/projects/{projectId}', operation: 'putProject' },
  { method: 'DELETE', path: '/admin/v1/accounts/{accountId}/projects/{projectId}', operation: 'retireProject' },
  { method: 'PUT', path: '/admin/v1/accounts/{accountId}/projects/{projectId}/campaigns/{campaignId}', operation: 'putCampaign' },
  { method: 'DELETE', path: '/admin/v1/accounts/{accountId}/projects/{projectId}/campaigns/{campaignId}', operation: 'retireCampaign' },
  { method: 'POST', path: '/admin/v1/accounts/{accountId}/keys', operation: 'createKey' },
  { method: 'GET', path: '/admin/v1/accounts/{accountId}/keys', operation: 'listKeys' },
  { method: 'DELETE', path: '/admin/v1/accounts/{accountId}/keys/{keyId}', operation: 'revokeKey' },
  { method: 'POST', path: '/admin/v1/accounts/{accountId}/keys/{keyId}/rotate', operation: 'rotateKey' },
  { method: 'GET', path: '/admin/v1/accounts/{accountId}/rejections', operation: 'listRejections' },
  { method: 'POST', path: '/admin/v1/accounts/{accountId}/rejections/{rejectionId}/release', operation: 'releaseRejection' },
  { method: 'GET', path: '/admin/v1/accounts/{accountId}/people', operation: 'findPerson' },
  { method: 'POST', path: '/admin/v1/accounts/{accountId}/erasures', operation: 'erasePerson' },
  { method: 'PUT', path: '/admin/v1/accounts/{accountId}/google-forms/{formId}', operation: 'connectGoogleForm' },
  { method: 'GET', path: '/admin/v1/accounts/{accountId}/google-forms', operation: 'listGoogleForms' },
  { method: 'DELETE', path: '/admin/v1/accounts/{accountId}/google-forms/{formId}', operation: 'removeGoogleForm' },
  { method: 'POST', path: '/admin/v1/accounts/{accountId}/google-forms/{formId}/rotate-key', operation: 'rotateGoogleFormKey' },
  { method: 'PUT', path: '/admin/v1/accounts/{accountId}/call-numbers/{number}', operation: 'connectCallNumber' },
  { method: 'GET', path: '/admin/v1/accounts/{accountId}/call-numbers', operation: 'listCallNumbers' },
  { method: 'DELETE', path: '/admin/v1/accounts/{accountId}/call-numbers/{number}', operation: 'removeCallNumber' },
];

/** API Gateway's route key, which it hands the function as `routeKey`. */
export const routeKeyOf = (route: Pick<AdminRoute, 'method' | 'path'>) => `${route.method} ${route.path}`;

const templateOf = (path: string) => new RegExp(`^${path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
// Built on first use: the lead functions' bundles import this module and must not carry the admin routes.
let templates: { route: AdminRoute; pattern: RegExp }[] | undefined;

/**
 * The admin route a request path matches, as API Gateway matches it (for the local server): the
 * routes of that path, and the decoded path parameters. Undefined when no route has the path.
 */
export const matchAdminPath = (path: string): { routes: AdminRoute[]; pathParameters: Record<string, string> } | undefined => {
  let pathParameters: Record<string, string> | undefined;
  const routes: AdminRoute[] = [];
  templates ??= adminRoutes.map((route) => ({ route, pattern: templateOf(route.path) }));
  for (const { route, pattern } of templates) {
    const match = pattern.exec(path);
    if (!match) continue;
    routes.push(route);
    pathParameters ??= Object.fromEntries(Object.entries(match.groups ?? {}).map(([name, value]) => [name, safeDecode(value)]));
  }
  return pathParameters ? { routes, pathParameters } : undefined;
};

/**
 * The path parameters of a path under a route template (`/api/call-lead-webhook/{provider}`), decoded,
 * as API Gateway matches it (for the local server); undefined when the path is not the template's.
 */
export const pathParametersOf = (template: string, path: string): Record<string, string> | undefined => {
  const match = templateOf(template).exec(path);
  return match ? Object.fromEntries(Object.entries(match.groups ?? {}).map(([name, value]) => [name, safeDecode(value)])) : undefined;
};

const safeDecode = (value: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** Environment variables the lead functions read (besides the table names of ./dynamodb/tables.ts). */
export const runtimeSettings = {
  /** Seconds a container keeps an account's configuration and API key before re-reading them. */
  configCacheTtlSeconds: 'CONFIG_CACHE_TTL_SECONDS',
  /** Comma-separated origins allowed to post from a browser to the website endpoint; `*` by default. */
  corsAllowedOrigins: 'CORS_ALLOWED_ORIGINS',
  /** Set only for DynamoDB Local; the deployed functions use the regional endpoint. */
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  /** Rejection records stored per browser key and minute (lib/settings.ts rejectionRecordsPerMinute); 60 when unset. */
  rejectionRecordsPerMinute: 'REJECTION_RECORDS_PER_MINUTE',
} as const;
