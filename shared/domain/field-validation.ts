/**
 * A lead's fields as the domain accepts them: the schemas' check (shared/schemas/validate.ts), with
 * its problems refused as a FieldValidationError (422, reason `validation`, every failing field listed).
 */
import { FieldValidationError } from './errors.ts';
import { leadFieldCheck, type UnknownFieldPolicy, type ValidatedFields } from '../schemas/validate.ts';
import type { LeadFieldSchemas } from '../schemas/lead-fields.ts';

export interface LeadFieldValidator {
  (body: Readonly<Record<string, unknown>>): ValidatedFields;
}

/** The validator of one source's fields: the validated fields, or a FieldValidationError listing each failing one. */
export const leadFieldValidator = (fields: LeadFieldSchemas, unknownFields: UnknownFieldPolicy): LeadFieldValidator => {
  const check = leadFieldCheck(fields, unknownFields);
  return (body) => {
    const checked = check(body);
    if (checked.problems) throw new FieldValidationError(checked.problems);
    return checked.fields;
  };
};
