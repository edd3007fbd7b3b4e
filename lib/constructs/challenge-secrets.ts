/**
 * Challenges for browser keys (CONTRACT.md section 11): their providers' secrets are sealed with the
 * page-token KMS key under the encryption context `lead_intake_captcha_account`. The functions that
 * open them (the browser-facing lead functions) may only Decrypt, and those that seal them (the admin
 * API) only Encrypt, and each only under that context: neither can open a Meta page token with it.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { PAGE_TOKEN_KEY_ID } from '../../shared/sealed-secrets.ts';
import { challengeSecretScope } from '../../shared/captcha/secrets.ts';

/** The encryption context key every challenge secret is sealed under. */
const CONTEXT_KEYS = Object.keys(challengeSecretScope.context('account'));

const onlyChallengeSecrets = {
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': CONTEXT_KEYS },
  Null: { 'kms:EncryptionContextKeys': 'false' },
};

export interface ChallengeSecretAccess {
  readonly key: kms.IKey;
  /** Functions that verify challenges: Decrypt only. */
  readonly openers: readonly lambda.Function[];
  /** Functions that create keys with a challenge: Encrypt only. */
  readonly sealers: readonly lambda.Function[];
}

export const grantChallengeSecrets = ({ key, openers, sealers }: ChallengeSecretAccess): void => {
  const grant = (fn: lambda.Function, action: string) => {
    fn.addEnvironment(PAGE_TOKEN_KEY_ID, key.keyArn);
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [action], resources: [key.keyArn], conditions: onlyChallengeSecrets }));
  };
  for (const fn of openers) grant(fn, 'kms:Decrypt');
  for (const fn of sealers) grant(fn, 'kms:Encrypt');
};
