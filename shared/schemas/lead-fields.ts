/**
 * The fields of a lead, as valibot schemas: the common fields once, and each endpoint's own fields
 * as data. CONTRACT.md section 2 sets every rule here. A platform source's own fields are its own
 * module's (shared/google/lead-fields.ts), made of the same parts (`text`, `optionalText`).
 */
import { isIP } from 'node:net';
import * as v from 'valibot';
import { normaliseIndianMobile } from './mobile.ts';

/**
 * 5000 → "5,000". Not `toLocaleString('en-US')`: its first call loads ICU's number formatting, about
 * 10 ms of every cold start (docs/performance.md), to format a handful of limits once.
 */
export const groupThousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

/** A required text field of at most `max` characters, with the contract's messages. */
export const text = (field: string, max: number) =>
  v.pipe(
    v.string(`${field} must be text`),
    v.minLength(1, `${field} is required`),
    v.maxLength(max, `${field} must be at most ${groupThousands(max)} characters`),
  );

/** Id fields may arrive as JSON numbers; the body has already turned valid ones into digit strings. */
const identifier = (field: string) =>
  v.pipe(
    v.string(`${field} must be text or a whole number`),
    v.minLength(1, `${field} is required`),
    v.maxLength(100, `${field} must be at most 100 characters`),
  );

const mobile = (field: string) =>
  v.pipe(
    v.string(`${field} must be text or a whole number`),
    v.check(
      (value) => normaliseIndianMobile(value) !== undefined,
      `${field} must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9`,
    ),
    v.transform((value) => normaliseIndianMobile(value)!),
  );

/** An ISO 8601 time with its offset (`Z` or `+05:30`), to the minute at least. */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether an ISO time names a real day and time (`Date.parse` reads 30 February as 2 March). */
const isCalendarTime = (value: string): boolean => {
  if (!ISO_WITH_OFFSET.test(value)) return false;
  const [year, month, day, hour, minute, second = 0] = (value.match(/\d+/g) ?? []).map(Number);
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth && hour! < 24 && minute! < 60 && second < 60;
};

/** How far in the future a consent's `given_at` may be: the sender's clock may run a little ahead. */
export const CONSENT_CLOCK_SKEW_MS = 5 * 60 * 1000;

/** The members of a consent (CONTRACT.md section 18), as the OpenAPI document shows them. */
export const consentMembers = v.strictObject(
  {
    notice: v.pipe(
      v.string('consent.notice must be text'),
      v.minLength(1, 'consent.notice is required'),
      v.maxLength(500, 'consent.notice must be at most 500 characters'),
    ),
    given_at: v.pipe(
      v.string('consent.given_at must be text'),
      v.check(isCalendarTime, 'consent.given_at must be an ISO 8601 time with an offset'),
      v.check((value) => !isCalendarTime(value) || Date.parse(value) <= Date.now() + CONSENT_CLOCK_SKEW_MS, 'consent.given_at must not be in the future'),
    ),
    purposes: v.optional(
      v.pipe(
        v.array(
          v.pipe(
            v.string('consent.purposes must be a list of text'),
            v.minLength(1, 'consent.purposes entries must be 1 to 50 characters'),
            v.maxLength(50, 'consent.purposes entries must be 1 to 50 characters'),
          ),
          'consent.purposes must be a list of text',
        ),
        v.maxLength(10, 'consent.purposes must list at most 10 purposes'),
      ),
    ),
  },
  (issue) => {
    // A member's issue carries the member's own path (the field's is added above it afterwards).
    const member = issue.path?.[0]?.key;
    if (member === undefined) return 'consent must be an object';
    return issue.expected === 'never' ? `consent.${member} is not accepted` : `consent.${member} is required`;
  },
);

/**
 * The consent a sender saw given, kept unchanged: its members are not trimmed, and a member the
 * contract does not name is refused rather than stored unread.
 */
const consent = v.pipe(
  // An array, or a number as the body parser keeps it (JsonNumber), is an object to valibot: refused
  // here, before its members are looked for.
  v.custom<Record<string, unknown>>(
    (input) => typeof input === 'object' && input !== null && [Object.prototype, null].includes(Object.getPrototypeOf(input)),
    'consent must be an object',
  ),
  consentMembers,
);

export type ConsentFields = v.InferOutput<typeof consent>;

/** Fields every endpoint takes, in the order errors are reported. */
export const commonLeadFields = {
  name: text('name', 200),
  mobile_number: mobile('mobile_number'),
  email: v.optional(
    v.pipe(
      v.string('email must be text'),
      v.maxLength(254, 'email must be at most 254 characters'),
      v.email('email must be a valid email address'),
    ),
  ),
  alternate_number: v.optional(mobile('alternate_number')),
  projectID: identifier('projectID'),
  campaignID: identifier('campaignID'),
  consent: v.optional(consent),
};

/** Fields that may arrive as JSON numbers and are then read as their decimal digits. */
export const numericTextFields: ReadonlySet<string> = new Set([
  'mobile_number',
  'alternate_number',
  'projectID',
  'campaignID',
]);

/** An optional text field of at most `max` characters. */
export const optionalText = (field: string, max: number) => v.optional(text(field, max));

export const websiteLeadFields = {
  ...commonLeadFields,
  sub_source: text('sub_source', 200),
  profession: optionalText('profession', 200),
  location: optionalText('location', 200),
  notes: optionalText('notes', 5000),
  utm_id: optionalText('utm_id', 500),
  utm_campaign: optionalText('utm_campaign', 500),
  utm_source: optionalText('utm_source', 500),
  utm_medium: optionalText('utm_medium', 500),
  utm_term: optionalText('utm_term', 500),
  gclid: optionalText('gclid', 500),
  fbclid: optionalText('fbclid', 500),
  // Node's own parser: valibot's ip() refuses IPv6 with an embedded IPv4 (`::ffff:10.0.0.1`), which
  // dual-stack servers report for IPv4 visitors.
  visitor_ip: v.optional(
    v.pipe(
      v.string('visitor_ip must be text'),
      v.check((value) => isIP(value) !== 0, 'visitor_ip must be a valid IPv4 or IPv6 address'),
    ),
  ),
};

export const portalLeadFields = {
  ...commonLeadFields,
  notes: text('notes', 5000),
};

export const socialLeadFields = {
  ...commonLeadFields,
  // Any non-empty text: whether it names one of the account's social sub sources is checked later,
  // with its own answer (Sub source not found).
  platform: v.pipe(v.string('platform must be text'), v.minLength(1, 'platform is required')),
  profession: optionalText('profession', 200),
  location: optionalText('location', 200),
  notes: optionalText('notes', 5000),
  social_campaign: optionalText('social_campaign', 500),
  social_adset: optionalText('social_adset', 500),
  social_ad: optionalText('social_ad', 500),
};

export type LeadFieldSchemas = Record<string, v.GenericSchema<unknown, unknown>>;
