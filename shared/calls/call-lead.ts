/**
 * Calls to a project's number (CONTRACT.md section 13) as a source of the one intake (shared/intake/):
 * what is truly the call webhook's. A call becomes the lead `Unknown caller` with the caller as its
 * mobile number, in the project and campaign of the number called (a connection of the kind
 * `call_number`, looked up under the key's account); the provider's call id, qualified by the provider,
 * is its platform id, so deliveries of one call id, repeated or simultaneous, store one lead or one
 * record. A call out is ignored and not recorded; a call without a call id or a called number is
 * recorded before its number is looked up; a call to a number not connected is recorded. Each calls
 * key's deliveries are bounded per minute (429), counted only for deliveries that go on to write.
 * The intake does the rest (the number's guard in every write, its records kept once, the answer).
 */
import { CallNumberNotConnectedError } from './errors.ts';
import { boundIdentifier, FieldValidationError, KeyRateExceededError } from '../domain/errors.ts';
import type { KeyRequestBound } from '../domain/ports/keys-and-accounts.ts';
import type { DeclaredAs } from '../intake/steps.ts';
import type { ConnectionTarget, Delivery, IntakeSource } from '../intake/types.ts';
import { submissionOf } from '../domain/submissions.ts';
import { leadFieldValidator } from '../domain/field-validation.ts';
import { commonLeadFields } from '../schemas/lead-fields.ts';
import type { ValidatedFields } from '../schemas/validate.ts';
import { callDeliveryOf, type CallDelivery } from './delivery.ts';
import { callParametersOf } from './parameters.ts';
import { MAX_BODY_BYTES } from '../intake/steps.ts';
import { callProviderNamed, type CallProvider } from './providers.ts';
import { UnknownCallProviderError } from './errors.ts';
import { callNumberConnectionKey, callsWireNames } from './wire-names.ts';

/** The endpoint name calls carry in logs, metrics and rejection records; the lead's `source` is `call`. */
export const CALL_ENDPOINT = callsWireNames.name;
export const CALL_LEAD_NAME = 'Unknown caller';

/** Section 2's rules for the common fields; the call's own fields were read by the provider table's rules already. */
const validateCommonFields = leadFieldValidator(commonLeadFields, 'ignore');

/** Call leads as lead submissions: their source, and the provider as a sub source of their own (never checked against the account). */
const callSource = (provider: string) => ({ source: callsWireNames.leadSource, subSource: () => ({ kind: 'of_source' as const, name: provider }) });

/** The lead's fields before validation: the caller as mobile number, the number's project and campaign, and the call's details. */
export const callLeadFieldsOf = (call: CallDelivery, connection: Pick<ConnectionTarget, 'projectId' | 'campaignId'>): Record<string, string> => {
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

/** A call as the intake receives it. */
export interface CallIntakeDelivery extends Delivery {
  readonly call: CallDelivery;
}

/** One call as a delivery: its fields on its number's connection, its call id, the number it names under the key's account. */
export const callLeadDelivery = (call: CallDelivery, accountId: string | undefined): CallIntakeDelivery => {
  // Section 14: an identifier the service would store is at most 200 characters, or nothing is stored.
  boundIdentifier('call_id', call.callId);
  // Without a call id or a called number there is nothing to match or to keep once.
  const missing: Record<string, string[]> = {};
  if (call.callId === undefined) missing.call_id = ['call_id is required'];
  if (call.calledNumber === undefined) missing.call_number = ['call_number is required'];
  else if (call.callNumber === undefined) missing.call_number = ['call_number must have at least 10 digits'];
  const refused = Object.keys(missing).length > 0;
  return {
    call,
    fields: (connection?: ConnectionTarget) => (connection ? callLeadFieldsOf(call, connection) : {}),
    platformId: { id: call.callId, qualifiers: { provider: call.provider } },
    // The number called decides before the caller does: a call to a number not connected is that, whoever called.
    connection: { id: call.callNumber, accountId, notConnectedFields: { call_number: call.callNumber } },
    ...(!call.inbound && { ignored: 'ignored' }),
    ...(refused && { refusal: new FieldValidationError(missing), refusalFields: missing, refusalBeforeConnection: true }),
    // Who called, for the record's person (access and erasure find it): the caller, when a mobile.
    person: { ...(call.caller !== undefined && { mobile_number: call.caller }) },
  };
};

/** What the call webhook's intake needs besides the intake's own stores. */
export interface CallIntakeDependencies {
  /** Each calls key's deliveries per minute (CONTRACT.md section 13's webhook; docs/reference.md). */
  readonly keyRequests: KeyRequestBound;
  readonly now: () => Date;
}

/**
 * The call webhook's declaration: its provider from the path (404 before the key), its `calls` key, its
 * parameters however sent (413, 415, 400) read through the provider's row, and its per-key bound.
 */
export const callsIntake = (deps: CallIntakeDependencies): IntakeSource<CallIntakeDelivery, CallProvider> & DeclaredAs<'scoped-api-key', 'parameters'> => ({
  name: CALL_ENDPOINT,
  authentication: { kind: 'scoped-api-key', scope: callsWireNames.keyScope },
  bodyFormat: 'parameters',
  answer: callsWireNames.acceptance,
  platformId: callsWireNames.platformId,
  connection: { key: callNumberConnectionKey, notConnected: { answer: 'record', error: () => new CallNumberNotConnectedError() } },
  lead: {
    validate: (fields) => ({ ...validateCommonFields(fields), ...Object.fromEntries(Object.entries(fields).filter(([name]) => name.startsWith('call_'))) }) as ValidatedFields,
    submission: (fields, { call }) => callSubmission(call.provider, fields),
  },
  route: (event) => {
    const provider = callProviderNamed(event.pathParameters?.provider);
    if (!provider) throw new UnknownCallProviderError();
    return provider;
  },
  read: ({ event, route: provider, accountId }) => {
    const parameters = callParametersOf(event, { maxBytes: MAX_BODY_BYTES, ...(provider.jsonFormField !== undefined && { jsonFormField: provider.jsonFormField }) });
    return [callLeadDelivery(callDeliveryOf(provider, parameters), accountId)];
  },
  // Counted only where a delivery goes on to DynamoDB's writes: what was refused before (no key, another
  // key, a body that cannot be read) and calls out write nothing, and cost the counter nothing. A key
  // stored before key ids existed cannot be a calls key; its account stands in for it all the same.
  admit: async ({ keyId, accountId }) => {
    const at = deps.now();
    if (!(await deps.keyRequests.admit(keyId ?? `account:${accountId}`, at))) throw new KeyRateExceededError(secondsToNextMinute(at));
  },
});

/** Whole seconds until the next calendar minute (UTC), when a full key counts again; at least 1. */
const secondsToNextMinute = (at: Date): number => Math.max(1, Math.ceil((60_000 - (at.getTime() % 60_000)) / 1000));
