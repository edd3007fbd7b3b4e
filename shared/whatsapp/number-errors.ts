/**
 * Connecting WhatsApp numbers (CONTRACT.md section 15): the refusals of the number lifecycle are
 * KeyAdminErrors, so the admin CLI maps them to its exit codes like the key lifecycle's (2 bad
 * arguments, 1 failed); the admin API turns them into its 400, 404 and 409 (numbers.ts).
 */
import { InvalidKeyOptionError, KeyAdminError, refusal } from '../domain/errors.ts';

// ---- The admin API's answers ------------------------------------------------------------------------
export class UnknownWhatsAppNumberError extends /* @__PURE__ */ refusal(404, 'whatsapp_number_not_found', 'WhatsApp number not found') {}
export class WhatsAppNumberConflictError extends /* @__PURE__ */ refusal(409, 'whatsapp_number_of_another_account', 'WhatsApp number is connected to another account') {}

// ---- The number lifecycle's refusals ------------------------------------------------------------------

/** Not a phone_number_id (ASCII digits, 1 to 200 of them): exit 2 / 400. */
export class InvalidPhoneNumberIdError extends InvalidKeyOptionError {
  constructor(phoneNumberId: string) {
    super('phone-number-id', `a phone number id is Meta's id of the business number, 1 to 200 digits, not ${JSON.stringify(phoneNumberId.slice(0, 220))}`);
  }
}

/** No such number is connected to the account: exit 1. */
export class WhatsAppNumberNotFoundError extends KeyAdminError {
  constructor(phoneNumberId: string) {
    super(`WhatsApp number ${phoneNumberId} is not connected`);
  }
}

/** The number is another account's (one number belongs to one account): exit 1. */
export class WhatsAppNumberOfAnotherAccountError extends KeyAdminError {
  constructor(phoneNumberId: string) {
    super(`WhatsApp number ${phoneNumberId} is connected to another account`);
  }
}

/** The project or campaign a number is to be connected to is not an active one of the account: exit 1. */
export class WhatsAppNumberTargetNotFoundError extends KeyAdminError {
  readonly target: 'project' | 'campaign';
  constructor(target: 'project' | 'campaign', id: string, accountId: string) {
    super(`${target} ${JSON.stringify(id)} is not an active ${target} of account ${JSON.stringify(accountId)}${target === 'campaign' ? ' under that project' : ''}`);
    this.target = target;
  }
}
