/**
 * Challenges for browser keys (CONTRACT.md section 11): a browser key may require a Turnstile,
 * reCAPTCHA or hCaptcha token with each submission. The domain decides what the provider's answer
 * means; how the provider is asked (shared/captcha/siteverify.ts) and how the key's secret is opened
 * are the ports below.
 */
import { InvalidKeyOptionError } from './errors.ts';

export const CHALLENGE_PROVIDERS = ['turnstile', 'recaptcha', 'hcaptcha'] as const;
export type ChallengeProvider = (typeof CHALLENGE_PROVIDERS)[number];

/** The body member a page sends the widget's token in; never stored, never a validation problem. */
export const CHALLENGE_TOKEN_FIELD = 'captcha_token';

/** reCAPTCHA v3's score below which a submission is taken for a bot's. */
export const MIN_RECAPTCHA_SCORE = 0.5;

/** A key's challenge as stored: the provider and its secret, sealed (never the secret in clear). */
export interface KeyChallenge {
  readonly provider: ChallengeProvider;
  readonly sealedSecret: string;
  /** reCAPTCHA v3: the action a token must have been made for (CONTRACT.md section 14); absent: any. */
  readonly action?: string;
}

/** A challenge as it is asked for: the provider's name as given, its secret in clear, and (reCAPTCHA v3) an action. */
export interface ChallengeRequest {
  readonly provider: string;
  readonly secret: string;
  readonly action?: string | null;
}

/** reCAPTCHA's action names: letters, digits, slashes and underscores (its documented alphabet). */
const RECAPTCHA_ACTION = /^[A-Za-z0-9_/]{1,100}$/;

/** Seals and opens a challenge secret for its account (KMS in AWS, the local cipher locally). */
export interface ChallengeSecretCipher {
  seal(accountId: string, secret: string): Promise<string>;
  open(accountId: string, sealed: string): Promise<string>;
}

/**
 * What a provider answered a verification: its `success`, the `hostname` of the page the token was
 * made on (when it says), and for reCAPTCHA v3 its `score` and `action`.
 */
export interface SiteverifyAnswer {
  readonly success: boolean;
  readonly score?: number;
  readonly hostname?: string;
  readonly action?: string;
}

/** What the token must have been made for: a page of one of the key's origins, and the key's action. */
export interface ChallengeScope {
  /** The key's origins, normalised (`scheme://host[:port]`). */
  readonly origins: readonly string[];
  readonly action?: string;
}

export type ChallengeVerdict = 'passed' | 'failed' | 'unavailable';

/** Asks the provider about a token; `unavailable` when it cannot answer in time (unreachable, 5xx, too slow). */
export interface ChallengeVerifier {
  verify(provider: ChallengeProvider, secret: string, token: string, remoteIp: string | undefined): Promise<SiteverifyAnswer | 'unavailable'>;
}

/**
 * A provider's answer in the contract's words: success, a reCAPTCHA score (when sent) of at least 0.5,
 * and what the token was made for (CONTRACT.md section 14): the `hostname` the provider names (when it
 * names one) is the host of one of the key's origins, and a reCAPTCHA key's action (when it names one)
 * is the answer's. A token solved on another site, or for another form, fails.
 */
export const verdictOf = (provider: ChallengeProvider, answer: SiteverifyAnswer | 'unavailable', scope: ChallengeScope = { origins: [] }): ChallengeVerdict => {
  if (answer === 'unavailable') return 'unavailable';
  if (answer.success !== true) return 'failed';
  if (provider === 'recaptcha' && typeof answer.score === 'number' && answer.score < MIN_RECAPTCHA_SCORE) return 'failed';
  if (answer.hostname !== undefined && !scope.origins.some((origin) => hostOf(origin) === answer.hostname!.toLowerCase())) return 'failed';
  if (provider === 'recaptcha' && scope.action !== undefined && answer.action !== scope.action) return 'failed';
  return 'passed';
};

/** The host of a normalised origin, as providers name it: lower-case, without scheme, port or the brackets of an IPv6 address. */
const hostOf = (origin: string): string | undefined => {
  try {
    return new URL(origin).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return undefined;
  }
};

/** The token a body carries: a non-blank string, trimmed; anything else is no token. */
export const challengeTokenOf = (body: Readonly<Record<string, unknown>>): string | undefined => {
  const token = body[CHALLENGE_TOKEN_FIELD];
  return typeof token === 'string' && token.trim() !== '' ? token.trim() : undefined;
};

export interface ChallengeCheck {
  readonly accountId: string;
  readonly challenge: KeyChallenge;
  /** The key's origins: the page a token was made on must be one of theirs. */
  readonly origins: readonly string[];
  readonly token: string | undefined;
  readonly remoteIp: string | undefined;
}

/**
 * Verifies a submission's token for its key: no token fails without asking the provider; a secret
 * that cannot be opened, like a provider that cannot answer, is `unavailable` (the lead is quarantined,
 * not lost).
 */
export const checkChallenge = async (
  deps: { readonly verifier: ChallengeVerifier; readonly secrets: ChallengeSecrets },
  { accountId, challenge, origins, token, remoteIp }: ChallengeCheck,
): Promise<ChallengeVerdict> => {
  if (token === undefined) return 'failed';
  let secret: string;
  try {
    secret = await deps.secrets.secretOf(accountId, challenge.sealedSecret);
  } catch {
    return 'unavailable';
  }
  const scope = { origins, ...(challenge.action !== undefined && { action: challenge.action }) };
  return verdictOf(challenge.provider, await deps.verifier.verify(challenge.provider, secret, token, remoteIp), scope);
};

/**
 * Opened secrets, once per container per key: the sealed text is the cache's key, so a rotated key
 * (which keeps its sealed secret) shares its entry. A failed opening is not kept.
 */
export class ChallengeSecrets {
  readonly #cipher: Pick<ChallengeSecretCipher, 'open'>;
  readonly #opened = new Map<string, Promise<string>>();
  readonly #maxEntries: number;

  constructor(cipher: Pick<ChallengeSecretCipher, 'open'>, maxEntries = 1000) {
    this.#cipher = cipher;
    this.#maxEntries = maxEntries;
  }

  secretOf(accountId: string, sealed: string): Promise<string> {
    const cacheKey = `${accountId}\n${sealed}`;
    let opened = this.#opened.get(cacheKey);
    if (!opened) {
      opened = this.#cipher.open(accountId, sealed);
      this.#opened.set(cacheKey, opened);
      if (this.#opened.size > this.#maxEntries) this.#opened.delete(this.#opened.keys().next().value!);
      opened.catch(() => this.#opened.delete(cacheKey));
    }
    return opened;
  }
}

/**
 * Checks a challenge asked for with a key: only a browser key may have one, the provider must be
 * known, and the secret given; an action only for reCAPTCHA (v3), in reCAPTCHA's alphabet. Returns
 * the provider, the secret and the action.
 */
export const checkedChallenge = (request: ChallengeRequest, browserKey: boolean): { provider: ChallengeProvider; secret: string; action?: string } => {
  if (!browserKey) throw new InvalidKeyOptionError('captcha', 'a challenge is for a browser key: give --origins (origins in the admin API) with it');
  const provider = request.provider?.trim().toLowerCase();
  if (!(CHALLENGE_PROVIDERS as readonly string[]).includes(provider)) {
    throw new InvalidKeyOptionError('captcha', `unknown challenge provider ${JSON.stringify(request.provider)}: the providers are ${CHALLENGE_PROVIDERS.join(', ')}`);
  }
  const secret = typeof request.secret === 'string' ? request.secret.trim() : '';
  if (secret === '') throw new InvalidKeyOptionError('captcha', "the challenge provider's secret is required (with the admin CLI from CAPTCHA_SECRET or standard input; in the admin API as captcha.secret)");
  if (secret.length > 1000) throw new InvalidKeyOptionError('captcha', "the challenge provider's secret is longer than 1000 characters");
  if (request.action === undefined || request.action === null) return { provider: provider as ChallengeProvider, secret };
  if (provider !== 'recaptcha') throw new InvalidKeyOptionError('captcha-action', 'a challenge action is for reCAPTCHA v3: give --captcha recaptcha (captcha.provider "recaptcha" in the admin API) with it');
  if (typeof request.action !== 'string' || !RECAPTCHA_ACTION.test(request.action)) {
    throw new InvalidKeyOptionError('captcha-action', 'a challenge action is 1 to 100 letters, digits, slashes or underscores, as reCAPTCHA names actions');
  }
  return { provider: provider as ChallengeProvider, secret, action: request.action };
};
