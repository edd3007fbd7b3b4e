import { describe, expect, it } from '@jest/globals';
import { leadFieldValidator } from '../../shared/domain/field-validation.ts';
import { FieldValidationError } from '../../shared/domain/errors.ts';
import { portalLeadFields } from '../../shared/schemas/lead-fields.ts';

const refusal = (body: Record<string, unknown>): FieldValidationError => {
  try {
    leadFieldValidator(portalLeadFields, 'reject')(body);
  } catch (error) {
    if (error instanceof FieldValidationError) return error;
    throw error;
  }
  throw new Error('the body was accepted');
};

describe('a field the endpoint does not accept', () => {
  it('is listed even when it is named like a member of every object (valueOf, toString)', () => {
    expect(Object.keys(refusal({ valueOf: '', toString: 'x' }).errors)).toEqual(['name', 'mobile_number', 'projectID', 'campaignID', 'notes', 'valueOf', 'toString']);
  });
});
