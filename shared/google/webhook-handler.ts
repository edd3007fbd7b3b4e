/**
 * POST /api/google-ads-lead-webhook (CONTRACT.md section 10): Google Ads lead form deliveries, on the
 * one intake (shared/intake/handler.ts) with Google's declaration (google-lead.ts). The contract's
 * order: size (413), Content-Type (415), JSON (400), the identifiers' bound (400), then the form's key
 * (401), before anything else is read; then the delivery becomes a lead, or a rejection record, in the
 * request, and is answered 200 `Lead received` whatever became of it.
 */
import type { KeyedConnectionDirectory } from '../intake/keyed-connection-directory.ts';
import { intakeHandler, type IntakeRuntime } from '../intake/handler.ts';
import { jsonBody, noKeyBeforeBody } from '../intake/steps.ts';
import { googleAdsIntake } from './google-lead.ts';
import { googleAdsWireNames } from './wire-names.ts';

/** Its answer to every delivery its key lets in (its descriptor's). */
export const LEAD_RECEIVED = googleAdsWireNames.acceptance.message;

export interface GoogleAdsRuntime extends IntakeRuntime {
  /** The connected forms (the connection store's kind `google_form`). */
  readonly connections: KeyedConnectionDirectory;
}

export const googleAdsHandler = (runtime: GoogleAdsRuntime) =>
  intakeHandler(googleAdsIntake, runtime, { authentication: noKeyBeforeBody(googleAdsIntake), body: jsonBody(googleAdsIntake) });
