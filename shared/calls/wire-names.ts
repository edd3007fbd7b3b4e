/**
 * The call webhook's names that its functions read at run time: the admin function (its key scope, its
 * admin routes) and its own (its name, its leads' source, its platform id, its answer). Apart from the
 * descriptor (source.ts), which only the stack and the tools read: esbuild keeps a whole object literal
 * that one bundle reads a field of, so a function importing the descriptor would carry its stack ids,
 * banner, OpenAPI words and seed too.
 */
import type { AdminRoute } from '../routes.ts';
import type { KeyScopeDeclaration } from '../sources/descriptor.ts';
import type { ConnectionKeyDeclaration } from '../sources/connection-kind.ts';

/** Its key scope: `create-key --endpoints calls`, in `x-api-key` or `?key=`. */
export const callsKeyScope = { name: 'calls', queryParameter: 'key' } as const satisfies KeyScopeDeclaration;

/** Its admin routes (the descriptor's `admin.routes`). */
export const callNumberAdminRoutes = [
  { method: 'PUT', path: '/admin/v1/accounts/{accountId}/call-numbers/{number}', operation: 'connectCallNumber' },
  { method: 'GET', path: '/admin/v1/accounts/{accountId}/call-numbers', operation: 'listCallNumbers' },
  { method: 'DELETE', path: '/admin/v1/accounts/{accountId}/call-numbers/{number}', operation: 'removeCallNumber' },
] as const satisfies readonly AdminRoute[];

/** What the webhook's function reads of its declaration. */
export const callsWireNames = {
  name: 'call',
  leadSource: 'call',
  keyScope: callsKeyScope,
  platformId: { field: 'call_id', idempotencyPrefix: 'call' },
  acceptance: { status: 200, message: 'Call received', withLead: false },
} as const;

/** Its numbers in the connection store (shared/sources/connection-kind.ts): the names stored today. */
export const callNumberConnectionKey = {
  kind: 'call_number',
  shape: { scope: 'account', partitionPrefix: 'CALLNUMBERS#', sortPrefix: 'NUMBER#', idAttribute: 'number' },
} as const satisfies ConnectionKeyDeclaration;
