/**
 * The core admin routes, the function timeout and the runtime settings: one source of truth for API
 * Gateway (lib/) and the local HTTP server. The lead sources' own routes, and their own admin routes,
 * are their descriptors' (shared/sources/registry.ts); shared/admin-routes.ts joins the admin routes of
 * both. Paths, methods and status codes are fixed by the contract.
 */

export type EndpointName = 'website' | 'portala' | 'portalb' | 'social';

/**
 * Seconds a lead function may run: the stack's timeout (lib/constructs/lead-function.ts), and what
 * `npm start` and `npm run invoke` give each request (FUNCTION_TIMEOUT_SECONDS overrides it locally).
 * Every answer leaves the handler before it (shared/deadline.ts); API Gateway's own limit is 30 s.
 */
export const FUNCTION_TIMEOUT_SECONDS = 10;

/**
 * What the admin function does for a core route (CONTRACT.md section 9): accounts, projects, campaigns,
 * keys, rejections, people and erasures. A lead source's own operations (connecting its forms or
 * numbers) are named by its descriptor's admin routes and done by its admin module.
 */
export type CoreAdminOperation =
  | 'listAudit'
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
  | 'listSources';

export interface AdminRoute<Operation extends string = string> {
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** API Gateway's path template: `{name}` is one path segment. */
  readonly path: string;
  /** Its operation's name: the admin function's log line (`outcome`) and OpenAPI's `operationId`. */
  readonly operation: Operation;
}

/** The admin API: configuration in, for the CRM's backend, behind IAM (SigV4) authorization. */
export const ADMIN_BASE_PATH = '/admin/v1';
export const adminEntry = 'functions/admin/handler.ts';

// Whole literals: esbuild can drop them from the lead bundles, which import this module (a path built
// from ADMIN_BASE_PATH would be kept). The CDK and OpenAPI tests check each starts with ADMIN_BASE_PATH.
export const coreAdminRoutes: readonly AdminRoute<CoreAdminOperation>[] = [
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
  { method: 'GET', path: '/admin/v1/accounts/{accountId}/sources', operation: 'listSources' },
  { method: 'GET', path: '/admin/v1/accounts/{accountId}/audit', operation: 'listAudit' },
];

/** API Gateway's route key, which it hands the function as `routeKey`. */
export const routeKeyOf = (route: Pick<AdminRoute, 'method' | 'path'>) => `${route.method} ${route.path}`;

/**
 * A route template's matcher, as API Gateway matches (for the local server): the decoded path
 * parameters of a path under the template (`/api/call-lead-webhook/{provider}`), undefined when the
 * path is not the template's.
 */
export const pathTemplate = (template: string): ((path: string) => Record<string, string> | undefined) => {
  const pattern = new RegExp(`^${template.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
  return (path) => {
    const match = pattern.exec(path);
    return match ? Object.fromEntries(Object.entries(match.groups ?? {}).map(([name, value]) => [name, safeDecode(value)])) : undefined;
  };
};

/**
 * The path parameters of a path under a route template (`/api/call-lead-webhook/{provider}`), decoded,
 * as API Gateway matches it (for the local server); undefined when the path is not the template's.
 */
export const pathParametersOf = (template: string, path: string): Record<string, string> | undefined => pathTemplate(template)(path);

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
