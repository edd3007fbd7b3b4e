/**
 * Portal logins' admin routes (CONTRACT.md section 17), apart from their operations (admin.ts): the
 * stack, the local server and OpenAPI join them to the admin API's (shared/admin-routes.ts) without
 * carrying the pull.
 */
import type { AdminRoute } from '../routes.ts';

const LOGIN_PATH = '/admin/v1/accounts/{accountId}/portals/{portal}/{login}';

/** Its admin routes, beside the core ones. */
export const portalAdminRoutes: readonly AdminRoute[] = [
  { method: 'PUT', path: LOGIN_PATH, operation: 'connectPortalLogin' },
  { method: 'GET', path: '/admin/v1/accounts/{accountId}/portals', operation: 'listPortalLogins' },
  { method: 'DELETE', path: LOGIN_PATH, operation: 'removePortalLogin' },
  { method: 'POST', path: `${LOGIN_PATH}/pull`, operation: 'pullPortalLogin' },
];

