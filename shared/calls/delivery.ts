/**
 * A provider's call notification read through its row of the provider table (providers.ts) into the
 * same neutral call (CONTRACT.md section 13): values trimmed and, where the provider quotes them,
 * unquoted; numbers compared on their last 10 digits; the outcome, status, duration, start time (India
 * time read as UTC), recording URL and agent's number each kept only when the contract's rules read it.
 */
import { connectionIdOf } from '../domain/connection-ids.ts';
import { callNumberConnectionKey } from './wire-names.ts';
import type { CallProvider, FieldNames, OutcomeRule } from './providers.ts';

/** A number's last 10 digits (any Unicode digits read as ASCII, everything else dropped): its connection's declared id rule; undefined with fewer than 10. */
export const callNumberOf = (text: string): string | undefined => connectionIdOf(callNumberConnectionKey, text);

/** The call's parameters as received, each a text (query string, form or JSON body alike: parameters.ts). */
export type CallParameters = Readonly<Record<string, string>>;

export type CallOutcome = 'answered' | 'missed';

/** One call as the service reads it, whatever the provider. Absent: not sent, or not readable by the rules. */
export interface CallDelivery {
  readonly provider: string;
  /** False for a call out (its direction is not one of the provider's words for a call in): ignored. */
  readonly inbound: boolean;
  readonly callId?: string;
  /** The caller as sent (becomes the lead's mobile_number by section 2's rules). */
  readonly caller?: string;
  /** The called number as sent, and its last 10 digits (absent when it has fewer than 10). */
  readonly calledNumber?: string;
  readonly callNumber?: string;
  readonly outcome?: CallOutcome;
  /** The provider's status word, at most 50 characters. */
  readonly status?: string;
  /** Whole seconds, rounded down. */
  readonly durationSeconds?: number;
  /** ISO-8601 UTC. */
  readonly startedAt?: string;
  /** An https URL of at most 2,000 characters. */
  readonly recordingUrl?: string;
  /** 10 digits. */
  readonly agentNumber?: string;
}

export const CALL_STATUS_MAX = 50;
export const RECORDING_URL_MAX = 2000;
/** India Standard Time is UTC+05:30 all year (no daylight saving). */
const INDIA_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;

/** Reads one notification of `provider`. */
export const callDeliveryOf = (provider: CallProvider, parameters: CallParameters): CallDelivery => {
  const read = (names: FieldNames): string | undefined => {
    for (const name of names) {
      const value = valueOf(parameters[name], provider.quotedValues === true);
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const { fields } = provider;
  const direction = read(fields.direction);
  const called = read(fields.called);
  const status = read(fields.status);
  const duration = durationOf(read(fields.durationSeconds));
  const started = read(fields.startedAt);
  const recording = read(fields.recordingUrl);
  const agent = read(fields.agentNumber);
  const outcome = outcomeOf(provider.outcome, read);
  return strip({
    provider: provider.name,
    inbound: direction === undefined || provider.inbound.includes(direction.toLowerCase()),
    callId: read(fields.callId),
    caller: read(fields.caller),
    calledNumber: called,
    callNumber: called === undefined ? undefined : callNumberOf(called),
    outcome,
    status: status === undefined ? undefined : Array.from(status).slice(0, CALL_STATUS_MAX).join(''),
    durationSeconds: duration,
    startedAt: started === undefined ? undefined : provider.startTime === 'india_local_time' ? indiaLocalTimeAsUtc(started) : isoWithOffsetAsUtc(started),
    recordingUrl: recording === undefined ? undefined : httpsUrl(recording),
    agentNumber: agent === undefined ? undefined : callNumberOf(agent),
  });
};

/** Trimmed, then (for a provider that quotes) one pair of surrounding double quotes removed; empty is absent. */
const valueOf = (raw: string | undefined, quoted: boolean): string | undefined => {
  if (raw === undefined) return undefined;
  let value = raw.trim();
  if (quoted && value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).trim();
  return value === '' ? undefined : value;
};

const outcomeOf = (rule: OutcomeRule, read: (names: FieldNames) => string | undefined): CallOutcome | undefined => {
  const value = read(rule.field);
  if (value === undefined) return undefined;
  if (rule.kind === 'duration_over_zero') {
    const seconds = durationOf(value);
    return seconds === undefined ? undefined : seconds > 0 ? 'answered' : 'missed';
  }
  const word = value.toLowerCase();
  if (rule.answered.includes(word)) return 'answered';
  if (rule.missed === 'any_other' || rule.missed.includes(word)) return 'missed';
  return undefined;
};

/** A non-negative number of seconds, rounded down to whole seconds (0 is kept); anything else is unknown. */
const durationOf = (text: string | undefined): number | undefined => {
  if (text === undefined || !/^\d{1,9}(\.\d+)?$/.test(text)) return undefined;
  return Math.floor(Number(text));
};

/**
 * `YYYY-MM-DD HH:mm:ss` in India time (Exotel's and Knowlarity's form) as ISO-8601 UTC; undefined when not
 * a real time. Knowlarity's events may add fractions of a second and an offset (`2025-12-06 11:11:21+05:30`):
 * an offset, when sent, names the instant.
 */
export const indiaLocalTimeAsUtc = (text: string): string | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})?$/i.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const local = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // A day its month lacks (2026-02-30) rolls over in Date.UTC: refused.
  if (local.getUTCMonth() !== month - 1 || local.getUTCDate() !== day) return undefined;
  const offsetMs = match[7] === undefined ? INDIA_OFFSET_MS : offsetMsOf(match[7]);
  return offsetMs === undefined ? undefined : new Date(local.getTime() - offsetMs).toISOString();
};

/** `Z`, `+05:30` or `+0530` as milliseconds east of UTC; undefined past 14 hours (no such zone). */
const offsetMsOf = (offset: string): number | undefined => {
  if (offset.toUpperCase() === 'Z') return 0;
  const digits = offset.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  if (Number(digits.slice(2)) > 59 || minutes > 14 * 60) return undefined;
  return (offset.startsWith('-') ? -1 : 1) * minutes * 60 * 1000;
};

/**
 * An ISO-8601 date-time with its offset (`Z` or `+05:30`) as UTC; undefined otherwise. A time without
 * an offset names no instant (the sender's clock could be anywhere), so it is left out.
 */
export const isoWithOffsetAsUtc = (text: string): string | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(text);
  if (!match) return undefined;
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) return undefined;
  const day = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (day.getUTCMonth() !== Number(match[2]) - 1 || day.getUTCDate() !== Number(match[3])) return undefined;
  return time.toISOString();
};

/** The URL as sent, when it is an https URL of at most 2,000 characters. */
const httpsUrl = (text: string): string | undefined => {
  if (text.length > RECORDING_URL_MAX) return undefined;
  try {
    return new URL(text).protocol === 'https:' ? text : undefined;
  } catch {
    return undefined;
  }
};

const strip = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
