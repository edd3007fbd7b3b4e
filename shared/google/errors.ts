/**
 * Google Ads lead forms (CONTRACT.md section 10): the webhook's refusal, and why a delivery did not
 * become a lead. Connecting forms refuses in the one connection lifecycle's errors, in the words of the
 * forms' declaration (connections.ts; shared/domain/connection-admin.ts).
 */
import { refusal } from '../domain/errors.ts';

/** An unknown form and a wrong key answer alike, so the answer tells nothing about which forms exist. */
export class InvalidGoogleKeyError extends refusal(401, 'invalid_google_key', 'Invalid google_key') {}

/** Google's "send test data": the webhook works; nothing is stored as a lead. */
export class GoogleTestLeadError extends refusal(422, 'google_test_lead', 'Google Ads test lead: the webhook works, nothing was stored as a lead') {}
