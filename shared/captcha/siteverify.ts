/**
 * The providers' `siteverify` (CONTRACT.md section 11): a form-encoded POST of the secret, the token
 * and the visitor's address, answered with JSON whose `success`, `hostname` (and reCAPTCHA's `score` and `action`) the domain
 * judges (shared/domain/challenge.ts). Unreachable, a 5xx, an answer that is not JSON, or slower than
 * its deadline: `unavailable`, so the lead is quarantined rather than lost.
 */
import type { ChallengeProvider, ChallengeVerifier, SiteverifyAnswer } from '../domain/challenge.ts';
import { currentDeadline } from '../deadline.ts';

export const SITEVERIFY_URLS: Readonly<Record<ChallengeProvider, string>> = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
};

/** When set, replaces every provider's verify URL (tests point it at a local fake). */
export const CAPTCHA_VERIFY_URL = 'CAPTCHA_VERIFY_URL';

/** The provider's own deadline. */
export const SITEVERIFY_TIMEOUT_MS = 3_000;
/**
 * Kept back from the request's deadline for what follows the provider's answer: the lead's write, or
 * the quarantine record's, with its retries. So a stalled provider still leaves the request answered
 * from the handler (section 7's deadline rule).
 */
export const SITEVERIFY_RESERVE_MS = 1_000;

export interface SiteverifyOptions {
  /** Replaces every provider's URL. */
  readonly verifyUrl?: string;
  readonly timeoutMs?: number;
  readonly reserveMs?: number;
}

export const siteverifyClient = ({ verifyUrl, timeoutMs = SITEVERIFY_TIMEOUT_MS, reserveMs = SITEVERIFY_RESERVE_MS }: SiteverifyOptions = {}): ChallengeVerifier => ({
  async verify(provider, secret, token, remoteIp) {
    const deadline = currentDeadline();
    const allowed = deadline ? Math.min(timeoutMs, deadline.remainingMs() - reserveMs) : timeoutMs;
    if (allowed <= 0) return 'unavailable';
    const form = new URLSearchParams({ secret, response: token, ...(remoteIp && { remoteip: remoteIp }) });
    try {
      const response = await fetch(verifyUrl ?? SITEVERIFY_URLS[provider], {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
        signal: AbortSignal.timeout(allowed),
      });
      if (response.status >= 500) return 'unavailable';
      const answer = (await response.json()) as { success?: unknown; score?: unknown; hostname?: unknown; action?: unknown };
      return {
        success: answer.success === true,
        ...(typeof answer.score === 'number' && { score: answer.score }),
        // What the token was made for (CONTRACT.md section 14): judged by the domain against the key.
        ...(typeof answer.hostname === 'string' && answer.hostname !== '' && { hostname: answer.hostname }),
        ...(typeof answer.action === 'string' && { action: answer.action }),
      } satisfies SiteverifyAnswer;
    } catch {
      // Unreachable, too slow (the abort), or an answer that is not JSON: the provider could not answer.
      return 'unavailable';
    }
  },
});

export const siteverifyFromEnvironment = (env: NodeJS.ProcessEnv = process.env): ChallengeVerifier =>
  siteverifyClient(env[CAPTCHA_VERIFY_URL] ? { verifyUrl: env[CAPTCHA_VERIFY_URL] } : {});
