/**
 * The lead sources' own admin routes (their descriptors' `admin.routes`) and the admin function's
 * operations for them (their admin modules, one line each in shared/admin-sources.ts): a route a
 * descriptor declares is served by the one admin function (which reads it from the source's admin
 * module, not the registry), and a module left out of the list fails here, not in production.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { adminRoutes } from '../../shared/admin-routes.ts';
import { adminRuntime } from '../../shared/admin-runtime.ts';
import * as sourceAdmins from '../../shared/admin-sources.ts';
import { adminFunctionRoutes, adminHandler, type AdminRuntime } from '../../shared/http/admin-handler.ts';
import { portalAdminRoutes } from '../../shared/pulled/routes.ts';
import { coreAdminRoutes, routeKeyOf } from '../../shared/routes.ts';
import { leadSources } from '../../shared/sources/registry.ts';
import { adminCall } from '../support/admin-handler.ts';
import { testService, type TestService } from '../support/service.ts';

let service: TestService;
let runtime: AdminRuntime;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  service = await testService();
  runtime = adminRuntime(service.repository, (line) => void logs.push({ ...line }));
});

const sourcesWithAdmin = leadSources.filter((source) => source.admin !== undefined);
// Portal logins' routes (CONTRACT.md section 17) are the pulled sources' one module's, after the webhook sources'.
const declaredRoutes = [
  ...sourcesWithAdmin.flatMap((source) => source.admin!.routes.map((route) => [source.name, route] as const)),
  ...portalAdminRoutes.map((route) => ['portals', route] as const),
];

describe('the sources’ admin routes', () => {
  it('are declared by the sources whose admin module the admin function lists under their name, and joined after the core routes', () => {
    expect(sourcesWithAdmin.length).toBeGreaterThan(0);
    expect(sourcesWithAdmin.map((source) => source.name).filter((name) => !(name in sourceAdmins))).toEqual([]);
    expect(adminRoutes).toEqual([...coreAdminRoutes, ...declaredRoutes.map(([, route]) => route)]);
  });

  it('are the routes the admin function serves: each source’s admin module is listed, with its descriptor’s routes', () => {
    // In any order: API Gateway hands the function the route key it matched.
    const byKey = (routes: typeof adminRoutes) => [...routes].sort((a, b) => routeKeyOf(a).localeCompare(routeKeyOf(b)));
    expect(byKey(adminFunctionRoutes)).toEqual(byKey(adminRoutes));
  });

  it('name each route key and each operation once', () => {
    expect(new Set(adminRoutes.map(routeKeyOf)).size).toBe(adminRoutes.length);
    expect(new Set(adminRoutes.map((route) => route.operation)).size).toBe(adminRoutes.length);
  });

  it.each(declaredRoutes.map(([source, route]) => [source, routeKeyOf(route), route] as const))('%s: %s has its operation in the admin function', (_source, _key, route) => {
    expect(runtime.sources[route.operation]).toBeInstanceOf(Function);
  });

  it('come from one admin module per source that declares them, each doing its descriptor’s operations and no other', () => {
    expect(Object.keys(sourceAdmins).sort()).toEqual([...sourcesWithAdmin.map((source) => source.name), 'portals'].sort());
    expect(sourceAdmins.portals.routes).toBe(portalAdminRoutes);
    for (const source of sourcesWithAdmin) {
      const module = sourceAdmins[source.name as keyof typeof sourceAdmins];
      expect(module.routes).toBe(source.admin!.routes);
      expect(Object.keys(module.operations).sort()).toEqual(source.admin!.routes.map((route) => route.operation).sort());
    }
  });

  it.each(declaredRoutes.map(([source, route]) => [source, routeKeyOf(route), route] as const))('%s: %s reaches its operation: an account that does not exist is 404 Account not found', async (_source, _key, route) => {
    const path = route.path.replace('{accountId}', `acc-missing-${Date.now()}`).replace('{formId}', '40000000001').replace('{number}', '8047181299').replace('{phoneNumberId}', '106540352299999').replace('{portal}', '99acres').replace('{login}', 'broker-1');
    const body = route.method === 'PUT' || route.method === 'POST' ? { projectId: 'PRJ-1', campaignId: 'CMP-1' } : undefined;
    logs.length = 0;
    const answer = await adminCall(adminHandler(runtime), route.method, path, body);
    expect(answer).toMatchObject({ status: 404, body: { status: false, message: 'Account not found' } });
    expect(logs.map((line) => [line.endpoint, line.outcome])).toEqual([['admin', 'account_not_found']]);
  });
});

describe('an admin function missing a source’s admin module', () => {
  it('is refused when it is built, naming the route with no operation', () => {
    expect(() => adminHandler({ ...runtime, sources: {} })).toThrow(/^admin route (PUT|GET|POST|DELETE) \/admin\/v1\/\S+ has no operation \w+$/);
  });

  it('is refused for any one source’s operation left out', () => {
    for (const [, route] of declaredRoutes) {
      const { [route.operation]: _left, ...others } = runtime.sources;
      expect(() => adminHandler({ ...runtime, sources: others })).toThrow(`has no operation ${route.operation}`);
    }
  });
});
