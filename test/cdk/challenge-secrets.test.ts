/**
 * Challenges for browser keys in the stack (CONTRACT.md section 11): the website function may Decrypt,
 * and the admin function Encrypt, with the page-token key only, and only under the challenge secrets'
 * encryption context; the other lead functions get nothing of it.
 */
import { describe, expect, test } from '@jest/globals';
import { resources, synthesize } from './synth.ts';

const { template } = synthesize();
const functions = resources(template, 'AWS::Lambda::Function');
const idOf = (prefix: string) => {
  const ids = Object.keys(functions).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one function ${prefix}*, found ${ids.length}`);
  return ids[0]!;
};
const keyId = Object.keys(resources(template, 'AWS::KMS::Key')).find((id) => id.startsWith('MetaLeadAdsPageTokenKey'))!;

const kmsStatementsOf = (functionId: string) => {
  const roleId = functions[functionId]!.Properties!.Role['Fn::GetAtt'][0];
  return Object.values(resources(template, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties!.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => p.Properties!.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[])
    .filter((s) => [s.Action].flat().some((action) => action.startsWith('kms:')));
};

const onlyChallengeContext = {
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['lead_intake_captcha_account'] },
  Null: { 'kms:EncryptionContextKeys': 'false' },
};

describe('challenge secrets in the stack', () => {
  test('lets the website function Decrypt with the page-token key only, under the challenge context, and names the key', () => {
    const website = idOf('websiteLead');
    expect(kmsStatementsOf(website)).toEqual([{ Effect: 'Allow', Action: 'kms:Decrypt', Resource: { 'Fn::GetAtt': [keyId, 'Arn'] }, Condition: onlyChallengeContext }]);
    expect(functions[website]!.Properties!.Environment.Variables.META_PAGE_TOKEN_KEY_ID).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  });

  test('lets the admin function Encrypt only, under the same context (its other statement is portal credentials’ own context: test/cdk/portals.test.ts)', () => {
    const statements = kmsStatementsOf(idOf('AdminFunction')).filter((s) => JSON.stringify(s.Condition).includes('lead_intake_captcha_account'));
    expect(statements).toEqual([{ Effect: 'Allow', Action: 'kms:Encrypt', Resource: { 'Fn::GetAtt': [keyId, 'Arn'] }, Condition: onlyChallengeContext }]);
  });

  test('gives the server-to-server lead functions no KMS access', () => {
    for (const name of ['portalaLead', 'portalbLead', 'socialLead']) expect(kmsStatementsOf(idOf(name))).toEqual([]);
  });
});
