/**
 * Calls to a project's number (CONTRACT.md section 13): the webhook's refusals and why a call did not
 * become a lead. Connecting numbers refuses in the one connection lifecycle's errors, in the words of
 * the numbers' declaration (connections.ts; shared/domain/connection-admin.ts).
 */
import { refusal } from '../domain/errors.ts';

/** The path names no provider of the table (shared/calls/providers.ts): answered before the key is read. */
export class UnknownCallProviderError extends /* @__PURE__ */ refusal(404, 'unknown_call_provider', 'Unknown call provider') {}

/** The called number is not one the key's account has connected: a rejection record, answered 200. */
export class CallNumberNotConnectedError extends /* @__PURE__ */ refusal(422, 'call_number_not_connected', 'The called number is not connected to a project of this account') {}
