import * as v from 'valibot';
import { JsonNumber } from './json-number.ts';
import { numericTextFields, type ConsentFields, type LeadFieldSchemas } from './lead-fields.ts';

export type UnknownFieldPolicy = 'ignore' | 'reject';

/** Validated, normalised fields: trimmed text, 10-digit mobiles, section 18's consent object; absent optional fields left out. */
export type ValidatedFields = Readonly<Record<string, string | ConsentFields>>;

/** A text field of validated fields (every field but `consent` is text once validated). */
export const textOf = (fields: ValidatedFields, field: string): string | undefined => {
  const value = fields[field];
  return typeof value === 'string' ? value : undefined;
};

/** Each failing field's messages, in the order of the schema. */
export type FieldProblems = Readonly<Record<string, readonly string[]>>;

/** What a check of a body found: the validated fields, or every problem. */
export type FieldCheck = { readonly fields: ValidatedFields; readonly problems?: undefined } | { readonly problems: FieldProblems };

export interface LeadFieldCheck {
  (body: Readonly<Record<string, unknown>>): FieldCheck;
}

/**
 * Builds the check of one endpoint's fields: trims text, reads `""` and `null` as absent, reads
 * numbers in the id and phone fields as their digits, then checks every field and lists each failing
 * one, in the order of the schema. The domain turns problems into its refusal
 * (shared/domain/field-validation.ts): the schemas sit below it and name no domain error.
 */
export const leadFieldCheck = (fields: LeadFieldSchemas, unknownFields: UnknownFieldPolicy): LeadFieldCheck => {
  const schema = v.object(fields);
  const order = Object.keys(fields);

  return (body) => {
    const input: Record<string, unknown> = {};
    for (const field of order) {
      if (!Object.hasOwn(body, field)) continue;
      const value = readValue(field, body[field]);
      if (value !== undefined) input[field] = value;
    }

    const errors: Record<string, string[]> = {};
    const result = v.safeParse(schema, input, { abortEarly: false });
    if (!result.success) {
      for (const issue of result.issues) {
        const field = String(issue.path?.[0]?.key ?? '');
        const message = issue.type === 'object' && issue.input === undefined ? `${field} is required` : issue.message;
        (errors[field] ??= []).push(message);
      }
    } else if (result.output.alternate_number !== undefined && result.output.alternate_number === result.output.mobile_number) {
      errors.alternate_number = ['alternate_number must differ from mobile_number'];
    }
    if (unknownFields === 'reject') {
      for (const field of Object.keys(body)) {
        if (!Object.hasOwn(fields, field)) errors[field] = [`${field} is not accepted on this endpoint`];
      }
    }

    if (Object.keys(errors).length > 0) return { problems: inSchemaOrder(errors, order) };
    return { fields: result.output as ValidatedFields };
  };
};

const readValue = (field: string, value: unknown): unknown => {
  if (value === null) return undefined;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }
  if (value instanceof JsonNumber && numericTextFields.has(field)) return value.digits ?? value;
  return value;
};

const inSchemaOrder = (errors: Record<string, string[]>, order: readonly string[]) => {
  const sorted: Record<string, string[]> = {};
  for (const field of order) if (errors[field]) sorted[field] = errors[field];
  // Own properties only: a field named like an Object.prototype member (`valueOf`) is listed too.
  for (const [field, messages] of Object.entries(errors)) if (!Object.hasOwn(sorted, field)) sorted[field] = messages;
  return sorted;
};
