/**
 * The public routes: one source of truth for API Gateway (lib/) and the local HTTP server.
 * Paths, methods and status codes are fixed by the contract: lead senders code against them.
 */

export type EndpointName = 'website' | 'portala' | 'portalb' | 'social';

export interface LeadRoute {
  readonly endpoint: EndpointName;
  readonly path: string;
  /** The handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** Browser forms post to the website endpoint: it answers CORS preflight (OPTIONS) itself. */
  readonly browserFacing: boolean;
}

export const leadRoutes: readonly LeadRoute[] = [
  { endpoint: 'website', path: '/api/website-lead-create', entry: 'functions/website/handler.ts', browserFacing: true },
  { endpoint: 'portala', path: '/api/portala-lead-create', entry: 'functions/portala/handler.ts', browserFacing: false },
  { endpoint: 'portalb', path: '/api/portalb-lead-create', entry: 'functions/portalb/handler.ts', browserFacing: false },
  { endpoint: 'social', path: '/api/social-lead-create', entry: 'functions/social/handler.ts', browserFacing: false },
];

/**
 * Seconds a lead function may run: the stack's timeout (lib/constructs/lead-function.ts), and what
 * `npm start` and `npm run invoke` give each request (FUNCTION_TIMEOUT_SECONDS overrides it locally).
 * Every answer leaves the handler before it (shared/deadline.ts); API Gateway's own limit is 30 s.
 */
export const FUNCTION_TIMEOUT_SECONDS = 10;

/** Environment variables the lead functions read (besides the table names of ./dynamodb/tables.ts). */
export const runtimeSettings = {
  /** Seconds a container keeps an account's configuration and API key before re-reading them. */
  configCacheTtlSeconds: 'CONFIG_CACHE_TTL_SECONDS',
  /** Comma-separated origins allowed to post from a browser to the website endpoint; `*` by default. */
  corsAllowedOrigins: 'CORS_ALLOWED_ORIGINS',
  /** Set only for DynamoDB Local; the deployed functions use the regional endpoint. */
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
} as const;

/**
 * Meta Lead Ads (CONTRACT.md section 8): Meta's webhook calls GET (subscription check) and POST
 * (signed leadgen notifications) on one path; the worker behind its queue has no route.
 */
export interface MetaWebhookRoute {
  readonly path: string;
  readonly methods: readonly ('GET' | 'POST')[];
  readonly entry: string;
}

export const metaWebhookRoute: MetaWebhookRoute = {
  path: '/api/meta-leadgen-webhook',
  methods: ['GET', 'POST'],
  entry: 'functions/meta-webhook/handler.ts',
};

/** The worker's handler module (an SQS event source, not a route). */
export const metaWorkerEntry = 'functions/meta-worker/handler.ts';
