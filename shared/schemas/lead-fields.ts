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
