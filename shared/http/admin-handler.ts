/**
 * The admin API's Lambda handler (CONTRACT.md section 9): one function for every admin route, which
 * API Gateway has already authorised with IAM (SigV4). It reads the route from the event's route
 * key, calls one domain operation, and answers with the resource itself; refusals and failures get the
 * contract's envelope, and every answer `x-request-id`, from the same envelope middleware as the
 * lead endpoints.
 */
import { withinFunctionDeadline } from '../deadline.ts';
import type { AccountAdmin } from '../domain/account-admin.ts';
import type { AccountKeys } from '../domain/account-keys.ts';
import { personHandleOf, type PersonData } from '../domain/person-data.ts';
import { audited, auditPage, type AuditCaller, type AuditDependencies } from '../domain/audit.ts';
import { countOfErased, countOfRecords } from '../domain/ports/people.ts';
import type { ChannelRow } from '../domain/channel-watch.ts';
import type { LogSink } from '../log.ts';
import { JsonNumber } from '../schemas/json-number.ts';
import { coreAdminRoutes, routeKeyOf, type AdminRoute, type CoreAdminOperation } from '../routes.ts';
import * as sourceAdmins from '../admin-sources.ts';
import { leadCreated } from './envelope.ts';
import { created, noContent, ok, type AdminBody, type AdminParameters, type AdminRequestParts, type BoundAdminOperation } from './admin-operation.ts';
import { rejectionPage, releaseQuarantined, type ReleaseDependencies } from '../domain/quarantine.ts';
import type { LeadContext, LeadEvent, LeadResponse, WithBody } from './lambda.ts';
import { leadChain, step, type LeadStep } from './lead-chain.ts';
import { httpEnvelope } from './middleware/http-envelope.ts';
import { jsonObjectBodyOf } from './middleware/json-object-body.ts';

export interface AdminRuntime {
  readonly accounts: AccountAdmin;
  readonly keys: AccountKeys;
  /** The rejection log's pages and the release of quarantined submissions. */
  readonly quarantine: ReleaseDependencies;
  /** Access and erasure of a person's data (CONTRACT.md section 12). */
  readonly people: PersonData;
  /** An account's channels and their pace (CONTRACT.md section 16); 404 for an unknown account. */
  readonly channels: { list(accountId: string): Promise<readonly ChannelRow[]> };
  /** The audit of every look at a person's data (CONTRACT.md section 18). */
  readonly audit: AuditDependencies;
  /** The lead sources' own operations (their admin modules', shared/admin-sources.ts), by name, bound to their dependencies. */
  readonly sources: Readonly<Record<string, BoundAdminOperation>>;
  readonly log: LogSink;
}

/** Largest admin request body read; configuration is small. */
export const MAX_ADMIN_BODY_BYTES = 65_536;

/** What a 500 of the admin API says. */
export const adminRequestFailed = (requestId: string) => `Request failed (request ${requestId})`;

/** Each core route's work: the domain operation and the status of its answer. */
const coreOperations: Record<CoreAdminOperation, (runtime: AdminRuntime, p: AdminParameters, body: AdminBody, request: AdminRequestParts) => Promise<LeadResponse>> = {
  getAccount: async ({ accounts }, p) => ok(await accounts.getAccount(p.accountId!)),
  putAccount: async ({ accounts }, p, body) => ok(await accounts.putAccount(p.accountId!, body)),
  putProject: async ({ accounts }, p, body) => ok(await accounts.putProject(p.accountId!, p.projectId!, body)),
  retireProject: async ({ accounts }, p) => noContent(await accounts.retireProject(p.accountId!, p.projectId!)),
  putCampaign: async ({ accounts }, p, body) => ok(await accounts.putCampaign(p.accountId!, p.projectId!, p.campaignId!, body)),
  retireCampaign: async ({ accounts }, p) => noContent(await accounts.retireCampaign(p.accountId!, p.projectId!, p.campaignId!)),
  createKey: async ({ keys }, p, body) => created(await keys.create(p.accountId!, body)),
  listKeys: async ({ keys }, p) => ok(await keys.list(p.accountId!)),
  revokeKey: async ({ keys }, p) => noContent(await keys.revoke(p.accountId!, p.keyId!)),
  rotateKey: async ({ keys }, p, body) => created(await keys.rotate(p.accountId!, p.keyId!, body)),
  listRejections: async ({ quarantine, audit }, p, _body, request) => {
    const q = request.query;
    const page = () => rejectionPage(quarantine, p.accountId!, { ...(q.limit !== undefined && { limit: q.limit }), ...(q.reason !== undefined && { reason: q.reason }), ...(q.cursor !== undefined && { cursor: q.cursor }) });
    return ok(await audited(audit, callerOf(request), p.accountId!, { operation: 'rejections_list', count: (found) => found.items.length }, page));
  },
  // The answer the original request would now get: the lead endpoint's envelope (a 422 comes as the lead's refusal).
  releaseRejection: async ({ quarantine, audit }, p, _body, request) =>
    leadCreated((await audited(audit, callerOf(request), p.accountId!, { operation: 'release', count: () => 1 }, () => releaseQuarantined(quarantine, p.accountId!, p.rejectionId!))).lead),
  findPerson: async ({ people, audit }, p, _body, request) =>
    ok(await audited(audit, callerOf(request), p.accountId!, { operation: 'person_access', subject: personHandleOf(request.query), count: countOfRecords }, () => people.access(p.accountId!, request.query))),
  erasePerson: async ({ people, audit, log }, p, body, request) => {
    const { requestId } = request;
    const what = { operation: 'person_erasure', subject: personHandleOf(body), count: countOfErased } as const;
    const counts = await audited(audit, callerOf(request), p.accountId!, what, () => people.erase(p.accountId!, body));
    // The account, the counts and the request id: never who was erased.
    log({ level: 'info', message: 'person erased', requestId, accountId: p.accountId, erased: counts });
    return ok(counts);
  },
  listSources: async ({ channels }, p) => ok(await channels.list(p.accountId!)),
  listAudit: async ({ audit }, p, _body, request) => {
    const q = request.query;
    return ok(
      await auditPage(audit, callerOf(request), p.accountId!, {
        ...(q.limit !== undefined && { limit: q.limit }),
        ...(q.since !== undefined && { since: q.since }),
        ...(q.operation !== undefined && { operation: q.operation }),
        ...(q.cursor !== undefined && { cursor: q.cursor }),
      }),
    );
  },
};

const callerOf = ({ principal, requestId }: AdminRequestParts): AuditCaller => ({ principal: principal ?? 'unknown', requestId });

/**
 * Who signed the request: the IAM principal ARN API Gateway's IAM authorization puts in the request
 * context (payload 2.0's `authorizer.iam`), or its access key id where no ARN is given (npm start's
 * local credentials).
 */
export const principalOf = (event: LeadEvent): string => {
  const iam = (event.requestContext as { authorizer?: { iam?: { userArn?: string | null; accessKey?: string | null } } }).authorizer?.iam;
  return iam?.userArn || iam?.accessKey || 'unknown';
};

const isCoreOperation = (name: string): name is CoreAdminOperation => Object.hasOwn(coreOperations, name);

/**
 * The routes this function serves: the core ones, then each source's from its admin module (its
 * descriptor's), never from the registry, which would put every source's descriptor in this bundle.
 * test/admin/source-admin.test.ts holds them equal to shared/admin-routes.ts's, which the stack routes here.
 */
export const adminFunctionRoutes: readonly AdminRoute[] = [...coreAdminRoutes, ...Object.values(sourceAdmins).flatMap((admin) => admin.routes)];

/**
 * Each admin route's work, by route key: a core operation, or a source's from the runtime. A route with
 * neither (an operation its module does not do, or a runtime built without the sources' operations)
 * fails here, when the function is built, rather than on its first request. A module missing from
 * shared/admin-sources.ts takes its routes with it: test/admin/source-admin.test.ts finds those.
 */
const operationsByRouteKey = (runtime: AdminRuntime): Map<string, { operation: string; run: BoundAdminOperation }> =>
  new Map(
    adminFunctionRoutes.map((route) => {
      const name = route.operation;
      const run: BoundAdminOperation | undefined = isCoreOperation(name) ? (p, body, request) => coreOperations[name](runtime, p, body, request) : runtime.sources[name];
      if (!run) throw new Error(`admin route ${routeKeyOf(route)} has no operation ${name}`);
      return [routeKeyOf(route), { operation: name, run }];
    }),
  );

/** Requests with a body (PUT, POST) read it as a JSON object; an empty body is `{}` (every field optional or named in the error). */
const adminBody = (): LeadStep<LeadContext, WithBody> =>
  step<LeadContext, WithBody>({
    before: (request) => {
      const { event } = request;
      const method = event.requestContext.http.method;
      request.context.body = (method !== 'PUT' && method !== 'POST') || !event.body ? {} : (plainNumbers(jsonObjectBodyOf(event, MAX_ADMIN_BODY_BYTES)) as AdminBody);
    },
  });

/** The lead body parser keeps numbers as written (JsonNumber); configuration wants plain numbers. */
const plainNumbers = (value: unknown): unknown => {
  if (value instanceof JsonNumber) return Number(value.source);
  if (Array.isArray(value)) return value.map(plainNumbers);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainNumbers(v)]));
  return value;
};

/**
 * Under the invocation's deadline like the lead handlers (shared/deadline.ts), so a database that
 * stops answering gets the envelope's 503 before the function times out; Middy's own early timeout is
 * off for the same reason as theirs (it would race the handler alone).
 */
export const adminHandler = (runtime: AdminRuntime) =>
  withinFunctionDeadline(adminChain(runtime));

const adminChain = (runtime: AdminRuntime) => {
  const byRouteKey = operationsByRouteKey(runtime);
  return leadChain(httpEnvelope({ endpoint: 'admin', log: runtime.log, unexpected: adminRequestFailed }))
    .use(adminBody())
    .handler(async (event, context) => {
      const route = byRouteKey.get(event.routeKey);
      // API Gateway only invokes this function for the routes of shared/admin-routes.ts, which are these.
      if (!route) throw new Error(`no admin route ${event.routeKey}`);
      const response = await route.run(event.pathParameters as AdminParameters, context.body, {
        query: (event.queryStringParameters ?? {}) as AdminParameters,
        requestId: context.requestId,
        principal: principalOf(event),
      });
      context.outcome = route.operation;
      return response;
    });
};
