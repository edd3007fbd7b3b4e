import type { LeadFieldValidator } from '../../domain/field-validation.ts';
import { step, type LeadStep } from '../lead-chain.ts';
import type { LeadContext, WithBody, WithFields } from '../lambda.ts';

/** Field validation of the endpoint's schema: 422 listing every failing field. */
export const leadFields = (validate: LeadFieldValidator): LeadStep<LeadContext & WithBody, WithFields> =>
  step<LeadContext & WithBody, WithFields>({
    before: (request) => {
      request.context.fields = validate(request.context.body);
    },
  });
