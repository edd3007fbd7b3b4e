import type { MiddlewareObj } from '@middy/core';
import type { LeadContext, LeadEvent, LeadResponse } from '../lambda.ts';

/** The hidden form field people never see and bots fill (examples/landing-page carries it). */
export const HONEYPOT_FIELD = 'company_website';

/**
 * Marks a browser key's submission as a bot's when the hidden field is filled: a string that is not
 * blank, or any JSON value other than a string or null (CONTRACT.md section 7). Runs after field
 * validation, so an invalid body still gets its 422. Server-to-server keys are never judged by it.
 */
export const honeypot = (): MiddlewareObj<LeadEvent, LeadResponse, Error, LeadContext> => ({
  before: ({ context }) => {
    if (!context.account?.key.origins) return;
    const value = context.body?.[HONEYPOT_FIELD];
    if (value === undefined || value === null) return;
    if (typeof value === 'string' && value.trim() === '') return;
    context.bot = true;
  },
});
