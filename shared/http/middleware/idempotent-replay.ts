import { previousAnswer } from '../../domain/create-lead.ts';
import type { LeadStore } from '../../domain/ports/leads.ts';
import { step, type LeadStep } from '../lead-chain.ts';
import type { Authenticated, LeadContext, WithOptions } from '../lambda.ts';

/**
 * A request that repeats an `Idempotency-Key` already answered gets that answer again before any check
 * that could answer differently (CONTRACT.md section 14). The one such check that runs before the
 * lead's write is a browser key's challenge: its token is single-use, so asking the provider again
 * would refuse a retry whose lead is stored. A challenge key's keyed request therefore reads the key
 * first (one GetItem); every other request finds its key in the write it makes anyway (the lead's,
 * or a quarantine record's), at no extra request.
 */
export const idempotentReplay = (leads: Pick<LeadStore, 'previousAnswer'>): LeadStep<LeadContext & Authenticated & WithOptions, object> =>
  step<LeadContext & Authenticated & WithOptions>({
    before: async ({ context }) => {
      const key = context.account.key;
      if (!context.idempotency || context.dryRun || context.bot || !key.origins || !key.captcha) return;
      const earlier = await previousAnswer(leads, context.account.config.id, context.idempotency);
      if (earlier) context.replay = earlier.lead;
    },
  });
