/**
 * One call becomes one lead (CONTRACT.md section 13), through the same domain code as every endpoint:
 * the lead `Unknown caller` with the caller as its mobile number, in the project and campaign of the
 * number called, section 3's duplicates under the account's setting, and createLead with the
 * provider's call id as the idempotency claim in the lead's own transaction (like Google's lead_id),
 * so deliveries of one call id, repeated or simultaneous, store one lead.
 *
 * A call that cannot become a lead (no call id, caller or called number; a number the account has not
 * connected; a caller that is withheld or not a mobile; a retired project or campaign; a duplicate
 * under `ignore`) is kept in the account's rejection log with its provider and call id, claimed like
 * a lead (recordRefusal), so the first delivery of a call id decides and its redeliveries change
 * nothing. A call out is ignored and not recorded. A database outage propagates (503), and the
 * provider's retry stores the call once.
 *
 * Every write a call to a connected number makes carries the number's guard (callNumberGuard): a
 * number removed or moved since the container cached it stores nothing (ConnectionChangedError; the
 * webhook reads the number afresh, receivedAtOnce).
 */
import type { KeyAccountView } from '../domain/account-directory.ts';
import { CallNumberNotConnectedError } from './errors.ts';
import { callNumberGuard, type CallNumberConnection, type CallNumberDirectory } from './numbers.ts';
import { createLead, type CreateLeadDependencies } from '../domain/create-lead.ts';
import { boundIdentifier, FieldValidationError, IdempotencyKeyReusedError, isRejection, KeyRateExceededError, LeadErasedError, type LeadIntakeError } from '../domain/errors.ts';
import type { LeadRecord } from '../domain/lead.ts';
import { platformLeadIdempotency, recordRefusal } from '../domain/platform-leads.ts';
import type { ConnectionGuard, KeyRequestBound, RejectionLog } from '../domain/ports.ts';
import { refusedFields } from '../domain/rejections.ts';
import { rejectionOf, submissionOf } from '../domain/submissions.ts';
import { leadFieldValidator } from '../domain/field-validation.ts';
import { commonLeadFields } from '../schemas/lead-fields.ts';
import type { ValidatedFields } from '../schemas/validate.ts';
import type { CallDelivery } from './delivery.ts';
import { callsWireNames } from './wire-names.ts';

/** The endpoint name calls carry in logs, metrics and rejection records; the lead's `source` is `call`. */
export const CALL_ENDPOINT = callsWireNames.name;
export const CALL_LEAD_NAME = 'Unknown caller';
export interface CallLeadDependencies extends CreateLeadDependencies {
  readonly callNumbers: CallNumberDirectory;
  readonly rejections: RejectionLog;
  /** Each calls key's deliveries per minute (CONTRACT.md section 13's webhook; docs/reference.md). */
  readonly keyRequests: KeyRequestBound;
}

/** The request as it goes: its id, and the validated fields for its log line (masked there). */
export interface CallRequest {
  readonly requestId: string;
  fields?: ValidatedFields;
}

export type CallOutcome =
  | { readonly kind: 'created'; readonly lead: LeadRecord; readonly replayed: boolean }
  | { readonly kind: 'rejected'; readonly reason: string }
  /** A call out: nothing stored, nothing recorded. */
  | { readonly kind: 'ignored' }
  /** An earlier delivery of this call id decided already (a lead or a record): nothing changed. */
  | { readonly kind: 'already_decided' };

/** Section 2's rules for the common fields; the call's own fields were read by the provider table's rules already. */
const validateCommonFields = leadFieldValidator(commonLeadFields, 'ignore');

/** Call leads as lead submissions: their source, and the provider as a sub source of their own (never checked against the account). */
const callSource = (provider: string) => ({ source: callsWireNames.leadSource, subSource: () => ({ kind: 'of_source' as const, name: provider }) });

/** The lead's fields before validation: the caller as mobile number, the number's project and campaign, and the call's details. */
export const callLeadFieldsOf = (call: CallDelivery, connection: Pick<CallNumberConnection, 'projectId' | 'campaignId'>): Record<string, string> => {
  const fields: Record<string, string | undefined> = {
    name: CALL_LEAD_NAME,
    mobile_number: call.caller,
    projectID: connection.projectId,
    campaignID: connection.campaignId,
    call_id: call.callId,
    call_number: call.callNumber,
    call_outcome: call.outcome,
    call_status: call.status,
    call_duration_seconds: call.durationSeconds === undefined ? undefined : String(call.durationSeconds),
    call_started_at: call.startedAt,
    call_recording_url: call.recordingUrl,
    call_agent_number: call.agentNumber,
  };
  return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined));
};

/** The validated fields as the lead's details: the duration a whole number, the rest as text. */
const callSubmission = (provider: string, fields: ValidatedFields) => {
  const submission = submissionOf(callSource(provider), fields);
  const duration = submission.details.call_duration_seconds;
  return duration === undefined ? submission : { ...submission, details: { ...submission.details, call_duration_seconds: Number(duration) } };
};

/**
 * The call's identifiers are bounded before anything else (a longer call id is refused, 400, nothing
 * stored); a call out is ignored; a key past its deliveries of this minute is refused (429); then the
 * rules in the contract's order.
 */
export const receiveCall = async (
  call: CallDelivery,
  account: KeyAccountView,
  request: CallRequest,
  deps: CallLeadDependencies,
  // A delivery run again on its number read afresh (receivedAtOnce) was counted on its first run.
  { counted = false }: { readonly counted?: boolean } = {},
): Promise<CallOutcome> => {
  // Section 14: an identifier the service would store is at most 200 characters, or nothing is stored.
  boundIdentifier('call_id', call.callId);
  if (!call.inbound) return { kind: 'ignored' };
  // Counted only here, where the delivery goes on to DynamoDB's writes: what was refused before (no key,
  // another key, a body that cannot be read) and calls out write nothing, and cost the counter nothing.
  // A key stored before key ids existed cannot be a calls key; its account stands in for it all the same.
  const at = deps.now();
  if (!counted && !(await deps.keyRequests.admit(account.key.keyId ?? `account:${account.config.id}`, at))) throw new KeyRateExceededError(secondsToNextMinute(at));
  const accountId = account.config.id;
  const claim = call.callId === undefined ? undefined : platformLeadIdempotency(callsWireNames.platformId.idempotencyPrefix, CALL_ENDPOINT, `${call.provider}\n${call.callId}`);
  // Who called, for the record's person (access and erasure find it): the caller, when a mobile.
  const caller = { ...(call.caller !== undefined && { mobile_number: call.caller }) };
  const refuse = async (error: LeadIntakeError, fields: Readonly<Record<string, unknown>>, guard?: ConnectionGuard): Promise<CallOutcome> => {
    const reason = error instanceof FieldValidationError ? 'validation' : error.reason;
    const rejection = rejectionOf(
      CALL_ENDPOINT,
      { reason, message: error.message, fields, platformIds: { provider: call.provider, ...(call.callId !== undefined && { [callsWireNames.platformId.field]: call.callId }) } },
      { requestId: request.requestId, body: caller, ...(request.fields && { fields: request.fields }) },
    );
    const kept = await recordRefusal(deps.rejections, accountId, rejection, claim, guard);
    return kept === 'recorded' ? { kind: 'rejected', reason } : { kind: 'already_decided' };
  };

  // Without a call id or a called number there is nothing to match or to keep once.
  const missing: Record<string, string[]> = {};
  if (call.callId === undefined) missing.call_id = ['call_id is required'];
  if (call.calledNumber === undefined) missing.call_number = ['call_number is required'];
  else if (call.callNumber === undefined) missing.call_number = ['call_number must have at least 10 digits'];
  if (Object.keys(missing).length > 0) return refuse(new FieldValidationError(missing), missing);

  // The number called decides before the caller does: a call to a number not connected is that, whoever called.
  const connection = await deps.callNumbers.connection(accountId, call.callNumber!);
  if (!connection) return refuse(new CallNumberNotConnectedError(), { call_number: call.callNumber });

  // Whatever this call writes is refused if the number was removed or moved since it was read.
  const guard = callNumberGuard(connection);
  try {
    const fields = callLeadFieldsOf(call, connection);
    request.fields = { ...validateCommonFields(fields), ...Object.fromEntries(Object.entries(fields).filter(([name]) => name.startsWith('call_'))) };
    const { lead, replayed } = await createLead(callSubmission(call.provider, request.fields), account, deps, { idempotency: claim!, guard });
    return { kind: 'created', lead, replayed };
  } catch (error) {
    // The call id's first delivery was kept as a rejection record: it decided.
    if (error instanceof IdempotencyKeyReusedError) return { kind: 'already_decided' };
    // A redelivery of a call whose lead its person had erased (CONTRACT.md section 12): nothing is recorded about them again.
    if (error instanceof LeadErasedError) return { kind: 'already_decided' };
    if (!isRejection(error)) throw error;
    return refuse(error, refusedFields(error, request.fields ?? {}) ?? {}, guard);
  }
};

/** Whole seconds until the next calendar minute (UTC), when a full key counts again; at least 1. */
const secondsToNextMinute = (at: Date): number => Math.max(1, Math.ceil((60_000 - (at.getTime() % 60_000)) / 1000));
