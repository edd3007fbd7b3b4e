/**
 * A Google Ads lead form webhook delivery (CONTRACT.md section 10), read from the parsed body, and
 * its columns mapped to a lead's fields. `form_id`, `campaign_id`, `adgroup_id` and `creative_id` are
 * 64-bit integers sent as JSON numbers: the body parser keeps each number's source text (JsonNumber,
 * docs/decisions/0004-json-body-parsing.md), so they are read as their exact digits, never a float.
 */
import { boundIdentifier } from '../domain/errors.ts';
import type { Connection } from '../domain/ports/connections.ts';
import { notesOfAnswers } from '../domain/form-answers.ts';
import { JsonNumber } from '../schemas/json-number.ts';

export interface GoogleColumn {
  readonly id?: string;
  readonly name?: string;
  readonly value: string;
}

export interface GoogleDelivery {
  readonly leadId?: string;
  readonly formId?: string;
  readonly campaignId?: string;
  readonly adgroupId?: string;
  readonly creativeId?: string;
  readonly gclid?: string;
  /** The form's key as Google sends it back: compared, never kept or logged. */
  readonly key?: string;
  readonly isTest: boolean;
  readonly columns: readonly GoogleColumn[];
}

/** A whole non-negative number's exact digits, sent as a JSON number or as text; undefined otherwise. */
const digitsOf = (value: unknown): string | undefined => {
  if (value instanceof JsonNumber) return value.digits;
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return value.trim();
  return undefined;
};

const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** The identifiers a delivery sends and the service stores (CONTRACT.md section 14: at most 200 characters each). */
const IDENTIFIER_MEMBERS = ['lead_id', 'form_id', 'campaign_id', 'adgroup_id', 'creative_id', 'gcl_id'] as const;

/**
 * Members not named by the contract are ignored; so is a column that is not an object. An identifier
 * longer than 200 characters refuses the delivery (IdentifierTooLongError, 400), before its key is
 * checked or anything is stored.
 */
export const deliveryOf = (body: Readonly<Record<string, unknown>>): GoogleDelivery => {
  for (const member of IDENTIFIER_MEMBERS) {
    const value = body[member];
    boundIdentifier(member, value instanceof JsonNumber ? value.source : typeof value === 'string' ? value.trim() : undefined);
  }
  const columns = Array.isArray(body.user_column_data) ? body.user_column_data : [];
  return {
    leadId: textOf(body.lead_id) ?? digitsOf(body.lead_id),
    formId: digitsOf(body.form_id),
    campaignId: digitsOf(body.campaign_id),
    adgroupId: digitsOf(body.adgroup_id),
    creativeId: digitsOf(body.creative_id),
    gclid: textOf(body.gcl_id),
    key: typeof body.google_key === 'string' ? body.google_key : undefined,
    isTest: body.is_test === true,
    columns: columns
      .filter((column): column is Record<string, unknown> => typeof column === 'object' && column !== null && !Array.isArray(column))
      .map((column) => ({
        ...(typeof column.column_id === 'string' && { id: column.column_id }),
        ...(typeof column.column_name === 'string' && { name: column.column_name }),
        value: typeof column.string_value === 'string' ? column.string_value : '',
      })),
  };
};

/** Columns with a lead field of their own: they never go to notes, even when another column wins. */
const MAPPED_COLUMNS = new Set(['FULL_NAME', 'FIRST_NAME', 'LAST_NAME', 'PHONE_NUMBER', 'EMAIL', 'WORK_EMAIL', 'CITY']);

/**
 * The lead's fields before validation: `name` from FULL_NAME, else FIRST_NAME and LAST_NAME joined by
 * a space; `mobile_number` from PHONE_NUMBER; `email` from EMAIL, else WORK_EMAIL; `location` from
 * CITY; every other column a line of `notes` in the order sent; project and campaign from the form's
 * connection; Google's ids and gclid. The social endpoint's validator rules then apply.
 */
export const leadFieldsOf = (delivery: GoogleDelivery, form: Pick<Connection, 'projectId' | 'campaignId'>): Record<string, string> => {
  const column = (id: string) => delivery.columns.find((entry) => entry.id === id && entry.value.trim() !== '')?.value.trim();
  const parts = [column('FIRST_NAME'), column('LAST_NAME')].filter((part) => part !== undefined);
  const notes = notesOfAnswers(
    delivery.columns.filter((entry) => entry.id === undefined || !MAPPED_COLUMNS.has(entry.id)).map((entry) => ({ question: entry.name?.trim() || entry.id || '', answer: entry.value })),
  );
  const fields: Record<string, string | undefined> = {
    name: column('FULL_NAME') ?? (parts.length > 0 ? parts.join(' ') : undefined),
    mobile_number: column('PHONE_NUMBER'),
    email: column('EMAIL') ?? column('WORK_EMAIL'),
    location: column('CITY'),
    notes,
    projectID: form.projectId,
    campaignID: form.campaignId,
    gclid: delivery.gclid,
    google_lead_id: delivery.leadId,
    google_form_id: delivery.formId,
    google_campaign_id: delivery.campaignId,
    google_adgroup_id: delivery.adgroupId,
    google_creative_id: delivery.creativeId,
  };
  return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
};
