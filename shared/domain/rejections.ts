/**
 * Bounds on what one refused request can make the service store (CONTRACT.md section 7, "Bounded
 * costs under abuse"): at most 20 field problems (a validation rejection keeps at least one), long
 * names and values cut short, and at most 8 KiB for the whole record. The sender's answer is not
 * touched: only the kept record is bounded.
 */
import { CampaignNotFoundError, FieldValidationError, LeadAlreadyExistsError, ProjectNotFoundError, SubSourceNotFoundError } from './errors.ts';
import type { Rejection } from './ports/rejections.ts';

/**
 * What a refusal of a lead's fields or look-ups names for its rejection record, without contact
 * details: the field problems, or the sub source, project and campaign that were not found. Undefined
 * for any other failure (the caller says what else it knows). Shared by the lead endpoints and Meta.
 */
export const refusedFields = (error: unknown, fields: Readonly<Record<string, string | undefined>>): Record<string, unknown> | undefined => {
  if (error instanceof FieldValidationError) return error.errors;
  if (error instanceof SubSourceNotFoundError) return fields.platform !== undefined ? { platform: fields.platform } : { sub_source: fields.sub_source };
  if (error instanceof ProjectNotFoundError) return { projectID: fields.projectID };
  if (error instanceof CampaignNotFoundError) return { projectID: fields.projectID, campaignID: fields.campaignID };
  if (error instanceof LeadAlreadyExistsError) return { projectID: fields.projectID };
  return undefined;
};

/**
 * Names a reason was stored under before it had its one name (CONTRACT.md section 20): a record stored
 * under one reads as today's name, and a filter by either lists both.
 */
export const FORMER_REASON_NAMES: Readonly<Record<string, string>> = { field_validation: 'validation' };

/** The reason as it is named today. */
export const currentReasonOf = (reason: string): string => FORMER_REASON_NAMES[reason] ?? reason;

/** Every name records of this reason (today's name) may be stored under, today's first. */
export const storedNamesOf = (reason: string): string[] => [reason, ...Object.keys(FORMER_REASON_NAMES).filter((former) => FORMER_REASON_NAMES[former] === reason)];

/** How long a rejection record is kept, listed and releasable (its item expires then; DynamoDB's TTL deletes late). */
export const REJECTION_DAYS = 30;

export const MAX_REJECTION_BYTES = 8 * 1024;
export const MAX_REJECTION_FIELDS = 20;
const NAME_MAX = 64;
const VALUE_MAX = 200;
const MESSAGES_PER_FIELD = 3;
/** Room kept for the store's own attributes (keys, type, expiry) within the 8 KiB. */
const STORE_OVERHEAD_BYTES = 512;

/** Cuts text to `max` characters (whole code points), marking the cut with an ellipsis. */
export const truncate = (text: string, max: number): string => {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
};

const boundedValue = (value: unknown): unknown => {
  if (typeof value === 'string') return truncate(value, VALUE_MAX);
  if (Array.isArray(value)) {
    const kept = value.slice(0, MESSAGES_PER_FIELD).map((item) => (typeof item === 'string' ? truncate(item, VALUE_MAX) : truncate(JSON.stringify(item) ?? '', VALUE_MAX)));
    return value.length > MESSAGES_PER_FIELD ? [...kept, `… and ${value.length - MESSAGES_PER_FIELD} more`] : kept;
  }
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  return truncate(JSON.stringify(value) ?? String(value), VALUE_MAX);
};

const UNSAFE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * A field name as a record can keep it: the empty name (which DynamoDB refuses as a map key) and
 * `__proto__`, `constructor`, `prototype` (lost, or a prototype set, on the way to the table) are kept
 * bracketed. Their records were never stored before the failure to record stopped being swallowed.
 */
const storableName = (name: string): string => (name === '' || UNSAFE_NAMES.has(name) ? `[${name}]` : name);

/** Long names cut to the same text stay apart: the second `abc…` becomes `abc… (2)`. */
const uniqueNames = (names: readonly string[]): string[] => {
  const seen = new Set<string>();
  return names.map((name) => {
    let unique = name;
    for (let n = 2; seen.has(unique); n++) unique = `${name} (${n})`;
    seen.add(unique);
    return unique;
  });
};

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * The rejection as it may be stored: every property kept, its message and field problems bounded.
 * `omittedFields` counts the field problems left out, so the owner knows the list is not whole.
 */
export const boundedRejection = <R extends Rejection>(rejection: R): R & { readonly omittedFields?: number } => {
  const entries = Object.entries(rejection.fields ?? {});
  const kept = uniqueNames(entries.slice(0, MAX_REJECTION_FIELDS).map(([name]) => storableName(truncate(name, NAME_MAX)))).map(
    (name, i) => [name, boundedValue(entries[i]![1])] as const,
  );
  const base = { ...rejection, message: truncate(rejection.message, VALUE_MAX) };
  const build = (count: number) => {
    const omitted = entries.length - count;
    return { ...base, fields: Object.fromEntries(kept.slice(0, count)), ...(omitted > 0 && { omittedFields: omitted }) };
  };
  let count = kept.length;
  let bounded = build(count);
  while (count > 1 && bytes(bounded) > MAX_REJECTION_BYTES - STORE_OVERHEAD_BYTES) bounded = build(--count);
  return bounded;
};
