/**
 * Every admin route: the core ones (shared/routes.ts), then each declared source's own (its
 * descriptor's `admin.routes`), in the registry's order. For the stack's admin API, the local server and
 * OpenAPI; it reads the registry, so no function imports it (the lead bundles import shared/routes.ts,
 * which therefore cannot). The admin function serves the same routes, read from each source's admin
 * module (shared/http/admin-handler.ts `adminFunctionRoutes`, held equal by test/admin/source-admin.test.ts).
 */
import { coreAdminRoutes, pathTemplate, type AdminRoute } from './routes.ts';
import { leadSources } from './sources/registry.ts';
import { portalAdminRoutes } from './pulled/routes.ts';

export const adminRoutes: readonly AdminRoute[] = [...coreAdminRoutes, ...leadSources.flatMap((source) => source.admin?.routes ?? []), ...portalAdminRoutes];

const templates = adminRoutes.map((route) => ({ route, match: pathTemplate(route.path) }));

/**
 * The admin route a request path matches, as API Gateway matches it (for the local server): the
 * routes of that path, and the decoded path parameters. Undefined when no route has the path.
 */
export const matchAdminPath = (path: string): { routes: AdminRoute[]; pathParameters: Record<string, string> } | undefined => {
  let pathParameters: Record<string, string> | undefined;
  const routes: AdminRoute[] = [];
  for (const { route, match } of templates) {
    const parameters = match(path);
    if (!parameters) continue;
    routes.push(route);
    pathParameters ??= parameters;
  }
  return pathParameters ? { routes, pathParameters } : undefined;
};
