/**
 * Portal logins' credentials (CONTRACT.md section 17) are sealed with the page-token KMS key under the
 * encryption context `portal_login` (shared/pulled/logins.ts `portalCredentialScope`), as Meta's page
 * tokens are under theirs: a function granted here may Encrypt and Decrypt under that context only, and
 * so never opens a page token or a challenge secret.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { portalCredentialScope } from '../../shared/pulled/logins.ts';
import { PAGE_TOKEN_KEY_ID } from '../../shared/sealed-secrets.ts';

export const PORTAL_CREDENTIAL_CONTEXT_KEYS = Object.keys(portalCredentialScope.context('portal#login'));

/** `open`: Decrypt alone (the pull function opens credentials); `seal`: Encrypt alone (the admin function connects logins). */
export const grantPortalCredentials = (fn: lambda.Function, key: kms.IKey, may: 'open' | 'seal'): void => {
  fn.addEnvironment(PAGE_TOKEN_KEY_ID, key.keyArn);
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: may === 'open' ? ['kms:Decrypt'] : ['kms:Encrypt'],
      resources: [key.keyArn],
      conditions: { 'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': PORTAL_CREDENTIAL_CONTEXT_KEYS }, Null: { 'kms:EncryptionContextKeys': 'false' } },
    }),
  );
};
