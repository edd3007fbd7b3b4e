import { challengeTokenOf, checkChallenge, type ChallengeSecrets, type ChallengeVerifier } from '../../domain/challenge.ts';
import { step, type LeadStep } from '../lead-chain.ts';
import type { Authenticated, LeadContext, WithBody } from '../lambda.ts';

export interface ChallengeDependencies {
  readonly verifier: ChallengeVerifier;
  readonly secrets: ChallengeSecrets;
}

/**
 * A browser key with a challenge (CONTRACT.md section 11): its submission's `captcha_token` is
 * verified with the provider, after field validation and the honeypot (a bot already caught is not
 * asked about). The domain decides; the handler answers the verdict (a 403 and a quarantine for a
 * failure, the bot's answer and a quarantine when the provider could not answer). Keys without a
 * challenge, and dry runs (refused for browser keys before this), are never judged by it.
 */
export const captchaChallenge = (deps: ChallengeDependencies): LeadStep<LeadContext & Authenticated & WithBody, object> =>
  step<LeadContext & Authenticated & WithBody>({
  before: async ({ event, context }) => {
    const challenge = context.account.key.origins ? context.account.key.captcha : undefined;
    // A repeat of a key already answered is answered that (idempotent-replay.ts): the provider is not asked again.
    if (!challenge || context.bot || context.replay) return;
    context.challenge = await checkChallenge(deps, {
      accountId: context.account.config.id,
      challenge,
      origins: context.account.key.origins ?? [],
      token: challengeTokenOf(context.body),
      // The address API Gateway saw the request come from (the visitor's, for a browser form).
      remoteIp: event.requestContext?.http?.sourceIp || undefined,
    });
  },
  });
