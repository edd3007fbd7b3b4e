/**
 * The container's challenge checking: the providers' siteverify (CAPTCHA_VERIFY_URL when set) and the
 * keys' secrets, opened once per container per key. The cipher is built on the first opening, so a
 * container that never meets a challenge key needs no KMS key (the portal functions have none).
 */
import { ChallengeSecrets, type ChallengeSecretCipher } from '../domain/challenge.ts';
import type { ChallengeDependencies } from '../http/middleware/captcha-challenge.ts';
import { challengeSecretCipherFromEnvironment } from './secrets.ts';
import { siteverifyFromEnvironment } from './siteverify.ts';

export const challengesFromEnvironment = (env: NodeJS.ProcessEnv = process.env): ChallengeDependencies => {
  let cipher: ChallengeSecretCipher | undefined;
  return {
    verifier: siteverifyFromEnvironment(env),
    secrets: new ChallengeSecrets({ open: (accountId, sealed) => (cipher ??= challengeSecretCipherFromEnvironment(env)).open(accountId, sealed) }),
  };
};
