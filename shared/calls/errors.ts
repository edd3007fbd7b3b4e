/**
 * Calls to a project's number (CONTRACT.md section 13): the webhook's refusals and why a call did not
 * become a lead, and the refusals of connecting numbers. Those of the number lifecycle are
 * KeyAdminErrors, so the admin CLI maps them to its exit codes like the key lifecycle's (2 bad
 * arguments, 1 failed); the admin API turns them into its 400 and 404 (numbers.ts).
 */
import { InvalidKeyOptionError, KeyAdminError, refusal } from '../domain/errors.ts';

/** The path names no provider of the table (shared/calls/providers.ts): answered before the key is read. */
export class UnknownCallProviderError extends /* @__PURE__ */ refusal(404, 'unknown_call_provider', 'Unknown call provider') {}

/** The called number is not one the key's account has connected: a rejection record, answered 200. */
export class CallNumberNotConnectedError extends /* @__PURE__ */ refusal(422, 'call_number_not_connected', 'The called number is not connected to a project of this account') {}

// ---- The admin API's answers ------------------------------------------------------------------------
export class UnknownCallNumberError extends /* @__PURE__ */ refusal(404, 'call_number_not_found', 'Call number not found') {}

// ---- The number lifecycle's refusals ------------------------------------------------------------------

/** A number with fewer than 10 digits: exit 2 / 400. */
export class InvalidCallNumberError extends InvalidKeyOptionError {
  constructor(number: string) {
    super('number', `a call number has at least 10 digits, not ${JSON.stringify(number)}`);
  }
}

/** No such number is connected to the account: exit 1. */
export class CallNumberNotFoundError extends KeyAdminError {
  constructor(number: string) {
    super(`Call number ${number} is not connected`);
  }
}

/** The project or campaign a number is to be connected to is not an active one of the account: exit 1. */
export class CallNumberTargetNotFoundError extends KeyAdminError {
  readonly target: 'project' | 'campaign';
  constructor(target: 'project' | 'campaign', id: string, accountId: string) {
    super(`${target} ${JSON.stringify(id)} is not an active ${target} of account ${JSON.stringify(accountId)}${target === 'campaign' ? ' under that project' : ''}`);
    this.target = target;
  }
}
