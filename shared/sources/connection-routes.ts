/**
 * A kind of connection's admin API routes (CONTRACT.md section 9), made of its declaration
 * (connection-kind.ts): `PUT`, `GET`, `DELETE` under `/admin/v1/accounts/{accountId}/<path segment>`, and
 * `POST .../rotate-key` for a kind that carries a key. Its source's descriptor declares them
 * (`admin.routes`) and its admin module serves them (shared/http/connection-admin.ts).
 */
import type { AdminRoute } from '../routes.ts';
import type { ConnectionKindDeclaration } from './connection-kind.ts';

export const connectionAdminRoutes = (kind: Pick<ConnectionKindDeclaration, 'key' | 'words'>): readonly AdminRoute[] => {
  const { pathSegment, pathParameter, operations } = kind.words;
  const listing = `/admin/v1/accounts/{accountId}/${pathSegment}`;
  const one = `${listing}/{${pathParameter}}`;
  return [
    { method: 'PUT', path: one, operation: operations.connect },
    { method: 'GET', path: listing, operation: operations.list },
    { method: 'DELETE', path: one, operation: operations.remove },
    ...(kind.key && operations.rotate !== undefined ? [{ method: 'POST', path: `${one}/rotate-key`, operation: operations.rotate } as const] : []),
  ];
};
