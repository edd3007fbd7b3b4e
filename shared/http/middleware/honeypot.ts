import { step, type LeadStep } from '../lead-chain.ts';
import type { Authenticated, LeadContext, WithBody } from '../lambda.ts';

/** The hidden form field people never see and bots fill (examples/landing-page carries it). */
export const HONEYPOT_FIELD = 'company_website';

/**
 * Marks a browser key's submission as a bot's when the hidden field is filled: a string that is not
 * blank, or any JSON value other than a string or null (CONTRACT.md section 7). Runs after field
 * validation, so an invalid body still gets its 422. Server-to-server keys are never judged by it.
 */
export const honeypot = (): LeadStep<LeadContext & Authenticated & WithBody, object> =>
  step<LeadContext & Authenticated & WithBody>({
  before: ({ context }) => {
    if (!context.account.key.origins) return;
    const value = context.body[HONEYPOT_FIELD];
    if (value === undefined || value === null) return;
    if (typeof value === 'string' && value.trim() === '') return;
    context.bot = true;
  },
  });
