import type { MiddlewareObj } from '@middy/core';
import type { LeadFieldValidator } from '../../domain/field-validation.ts';
import type { LeadContext, LeadEvent, LeadResponse } from '../lambda.ts';

/** Field validation of the endpoint's schema: 422 listing every failing field. */
export const leadFields = (validate: LeadFieldValidator): MiddlewareObj<LeadEvent, LeadResponse, Error, LeadContext> => ({
  before: (request) => {
    request.context.fields = validate(request.context.body!);
  },
});
