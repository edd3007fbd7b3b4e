/**
 * The telephony providers whose call notifications become leads (CONTRACT.md section 13), as data:
 * they differ only by the names of their fields and by how a few fields read. Adding MyOperator or
 * Ozonetel is one more row here (and, for a provider that posts its JSON inside one form field, its
 * `jsonFormField`); nothing else in the service names a provider.
 */

/** Parameter names of one lead field, in the order read: the first one present (not empty) wins. */
export type FieldNames = readonly [string, ...string[]];

/**
 * How a provider tells whether the call was answered:
 * - `word`: a status word; one of `answered` is answered, one of `missed` is missed (`any_other`:
 *   every other word is missed); a word of neither leaves the outcome unknown.
 * - `duration_over_zero`: a duration over 0 seconds is answered, 0 is missed.
 * Words compare case-insensitively. A field the provider did not send leaves the outcome unknown.
 */
export type OutcomeRule =
  | { readonly kind: 'word'; readonly field: FieldNames; readonly answered: readonly string[]; readonly missed: readonly string[] | 'any_other' }
  | { readonly kind: 'duration_over_zero'; readonly field: FieldNames };

/**
 * How a provider writes when the call started: India's local time `YYYY-MM-DD HH:mm:ss` (an offset such as
 * `+05:30` after it, when sent, names the instant instead), or ISO-8601 with its offset.
 */
export type StartTimeForm = 'india_local_time' | 'iso_8601';

export interface CallProvider {
  /** The path segment (`/api/call-lead-webhook/{provider}`), and the lead's `sub_source`. */
  readonly name: string;
  readonly fields: {
    readonly callId: FieldNames;
    readonly caller: FieldNames;
    readonly called: FieldNames;
    /** The provider's own status word, kept as `call_status`. */
    readonly status: FieldNames;
    readonly durationSeconds: FieldNames;
    readonly startedAt: FieldNames;
    readonly recordingUrl: FieldNames;
    readonly agentNumber: FieldNames;
    readonly direction: FieldNames;
  };
  readonly outcome: OutcomeRule;
  readonly startTime: StartTimeForm;
  /** Direction words of a call in (case-insensitive); a call without a direction is a call in. Any other word is a call out, ignored. */
  readonly inbound: readonly string[];
  /** The provider may wrap values in double quotes (Exotel's Passthru does), which are removed. */
  readonly quotedValues?: boolean;
  /** A provider that posts its JSON object as one form field names that field: its members are read like the rest. */
  readonly jsonFormField?: string;
}

/** Exotel's Passthru applet: its request parameters, placed at the end of the call flow (README). */
const exotel: CallProvider = {
  name: 'exotel',
  fields: {
    callId: ['CallSid'],
    caller: ['CallFrom', 'From'],
    called: ['CallTo', 'To'],
    // `CallType` says `incomplete` for a hang-up, a busy line and no answer alike; `DialCallStatus` says which.
    status: ['DialCallStatus', 'CallType'],
    durationSeconds: ['DialCallDuration'],
    startedAt: ['StartTime'],
    recordingUrl: ['RecordingUrl'],
    agentNumber: ['DialWhomNumber'],
    direction: ['Direction'],
  },
  outcome: { kind: 'word', field: ['CallType'], answered: ['completed'], missed: 'any_other' },
  startTime: 'india_local_time',
  inbound: ['incoming'],
  quotedValues: true,
};

/** Knowlarity's call hook. */
const knowlarity: CallProvider = {
  name: 'knowlarity',
  fields: {
    callId: ['callid', 'uuid'],
    // Its call events as every public receiver reads them: `customer_number`, `knowlarity_number` or `k_number`, `uuid`.
    caller: ['caller_id', 'customer_number'],
    called: ['dispnumber', 'knowlarity_number', 'k_number'],
    status: ['call_type', 'hangup_cause'],
    durationSeconds: ['call_duration'],
    startedAt: ['start_time'],
    recordingUrl: ['resource_url'],
    agentNumber: ['agent_number'],
    direction: ['call_direction'],
  },
  outcome: { kind: 'duration_over_zero', field: ['call_duration'] },
  startTime: 'india_local_time',
  inbound: ['inbound'],
};

/** Any provider that can send the service's neutral field names. */
const generic: CallProvider = {
  name: 'generic',
  fields: {
    callId: ['call_id'],
    caller: ['caller_number'],
    called: ['called_number'],
    status: ['status'],
    durationSeconds: ['duration_seconds'],
    startedAt: ['started_at'],
    recordingUrl: ['recording_url'],
    agentNumber: ['agent_number'],
    direction: ['direction'],
  },
  outcome: { kind: 'word', field: ['status'], answered: ['answered'], missed: ['missed'] },
  startTime: 'iso_8601',
  inbound: ['inbound'],
};

export const callProviders: readonly CallProvider[] = [exotel, knowlarity, generic];

/** The provider a path names; undefined for any other name (404 `Unknown call provider`). */
export const callProviderNamed = (name: string | undefined): CallProvider | undefined => callProviders.find((provider) => provider.name === name);
