/**
 * Google Ads lead forms (CONTRACT.md section 10): the webhook's refusal, why a delivery did not become
 * a lead, and the refusals of connecting forms. Those of the form lifecycle are KeyAdminErrors, so
 * the admin CLI maps them to its exit codes like the key lifecycle's (2 bad arguments, 1 failed); the
 * admin API turns them into its 404 and 409 (shared/google/forms.ts).
 */
import { InvalidKeyOptionError, KeyAdminError, refusal } from '../domain/errors.ts';

/** An unknown form and a wrong key answer alike, so the answer tells nothing about which forms exist. */
export class InvalidGoogleKeyError extends refusal(401, 'invalid_google_key', 'Invalid google_key') {}

/** Google's "send test data": the webhook works; nothing is stored as a lead. */
export class GoogleTestLeadError extends refusal(422, 'google_test_lead', 'Google Ads test lead: the webhook works, nothing was stored as a lead') {}

// ---- The admin API's answers ------------------------------------------------------------------------
export class UnknownGoogleFormError extends /* @__PURE__ */ refusal(404, 'google_form_not_found', 'Form not found') {}
export class GoogleFormConflictError extends /* @__PURE__ */ refusal(409, 'google_form_of_another_account', 'Form is connected to another account') {}

// ---- The form lifecycle's refusals ------------------------------------------------------------------

/** A form id that is not a Google Ads form id (a whole number of up to 20 digits): exit 2. */
export class InvalidGoogleFormIdError extends InvalidKeyOptionError {
  constructor(formId: string) {
    super('form-id', `the form id must be the Google Ads form id, digits only, not ${JSON.stringify(formId)}`);
  }
}

/** No form with this id is connected (to this account): exit 1. */
export class GoogleFormNotFoundError extends KeyAdminError {
  constructor(formId: string) {
    super(`Form ${formId} is not connected`);
  }
}

/** The form is connected to another account: exit 1. */
export class GoogleFormOfAnotherAccountError extends KeyAdminError {
  constructor(formId: string) {
    super(`Form ${formId} is connected to another account`);
  }
}

/** The project or campaign a form is to be connected to is not an active one of the account: exit 1. */
export class GoogleFormTargetNotFoundError extends KeyAdminError {
  readonly target: 'project' | 'campaign';
  constructor(target: 'project' | 'campaign', id: string, accountId: string) {
    super(
      target === 'project'
        ? `project ${JSON.stringify(id)} is not an active project of account ${JSON.stringify(accountId)}`
        : `campaign ${JSON.stringify(id)} is not an active campaign of that project`,
    );
    this.target = target;
  }
}
