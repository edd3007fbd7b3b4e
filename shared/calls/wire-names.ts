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

/**
 * The bound a tenant meets (CONTRACT.md section 13): deliveries one calls key may send in one calendar
 * minute (UTC), the stack's setting `callRequestsPerKeyPerMinute` (a deployed name), handed to the function
 * (and read by `npm start`) as CALL_REQUESTS_PER_KEY_PER_MINUTE. Past it that key's deliveries are answered
 * 429 with Retry-After until the minute ends; every other key keeps its own allowance. The route's throttle
 * (its descriptor's `throttle`) is the platform's safety net above it.
 */
export const callRequestsSetting = { name: 'callRequestsPerKeyPerMinute', environment: 'CALL_REQUESTS_PER_KEY_PER_MINUTE', default: 300 } as const;

/** Its numbers in the connection store (shared/sources/connection-kind.ts): the names stored today. */
export const callNumberConnectionKey = {
  kind: 'call_number',
  shape: { scope: 'account', partitionPrefix: 'CALLNUMBERS#', sortPrefix: 'NUMBER#', idAttribute: 'number' },
  // `+91 80 4718 1234`, `080-4718-1234` and `8047181234` are one number.
  id: { rule: 'last-digits', digits: 10 },
} as const satisfies ConnectionKeyDeclaration;
