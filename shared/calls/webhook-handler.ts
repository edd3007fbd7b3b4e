/**
 * GET|POST /api/call-lead-webhook/{provider} (CONTRACT.md section 13): a telephony provider's
 * notification of a call to a project's number, on the one intake (shared/intake/handler.ts) with the
 * call webhook's declaration (call-lead.ts). The contract's order: the provider (404, before the key is
 * read), the key from `x-api-key` or `?key=` (401, 404) and its `calls` scope (403), then the body
 * (413, 415, 400); then the call becomes a lead, or a rejection record, in the request, and is answered
 * 200 `Call received` whatever became of it.
 */
import type { ConnectionDirectory } from '../intake/connection-directory.ts';
import { intakeHandler, type IntakeRuntime } from '../intake/handler.ts';
import { bodyReadByTheSource, scopedKeyAuthentication } from '../intake/steps.ts';
import { callsIntake, type CallIntakeDependencies } from './call-lead.ts';
import { callsWireNames } from './wire-names.ts';

export const CALL_RECEIVED = callsWireNames.acceptance.message;

export interface CallWebhookRuntime extends IntakeRuntime, CallIntakeDependencies {
  /** The account's connected numbers (the connection store's kind `call_number`). */
  readonly connections: ConnectionDirectory;
}

export const callWebhookHandler = (runtime: CallWebhookRuntime) => {
  const source = callsIntake(runtime);
  return intakeHandler(source, runtime, { authentication: scopedKeyAuthentication(source, runtime.directory), body: bodyReadByTheSource(source) });
};
