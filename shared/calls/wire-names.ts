/**
 * The call webhook's names that its functions read at run time: the admin function (its key scope, its
 * admin routes) and its own (its name, its leads' source, its platform id, its answer). Apart from the
 * descriptor (source.ts), which only the stack and the tools read: esbuild keeps a whole object literal
 * that one bundle reads a field of, so a function importing the descriptor would carry its stack ids,
 * banner, OpenAPI words and seed too.
 */
import type { KeyScopeDeclaration } from '../sources/descriptor.ts';
import type { ConnectionKeyDeclaration } from '../sources/connection-kind.ts';

/** Its key scope: `create-key --endpoints calls`, in `x-api-key` or `?key=`. */
export const callsKeyScope = { name: 'calls', queryParameter: 'key' } as const satisfies KeyScopeDeclaration;

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
  // `+91 80 4718 1234`, `080-4718-1234` and `8047181234` are one number.
  id: { rule: 'last-digits', digits: 10 },
} as const satisfies ConnectionKeyDeclaration;
