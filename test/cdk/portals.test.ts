/**
 * Portal logins in the stack (CONTRACT.md section 17), as far as issue 43's first part built it: the admin
 * function seals and opens portal credentials with the page-token key under their own encryption
 * context only (never a page token's or a challenge secret's), may put Portal Failing and Portal
 * Recovered on the lead bus, and the CRM delivery takes those two events.
 */
import { describe, expect, test } from '@jest/globals';
import { resources, synthesize } from './synth.ts';

const { template } = synthesize();
const functions = resources(template, 'AWS::Lambda::Function');
const adminId = Object.keys(functions).find((id) => id.startsWith('AdminFunction'))!;
const keyId = Object.keys(resources(template, 'AWS::KMS::Key')).find((id) => id.startsWith('MetaLeadAdsPageTokenKey'))!;
const busId = Object.keys(resources(template, 'AWS::Events::EventBus'))[0]!;
const roleId = functions[adminId]!.Properties!.Role['Fn::GetAtt'][0];
const adminStatements = Object.values(resources(template, 'AWS::IAM::Policy'))
  .filter((p) => (p.Properties!.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
  .flatMap((p) => p.Properties!.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);

describe('portal logins in the stack', () => {
  test('the admin function may Encrypt and Decrypt with the page-token key only under the portal_login context', () => {
    const portal = adminStatements.filter((s) => JSON.stringify(s.Condition ?? {}).includes('portal_login'));
    expect(portal).toEqual([
      {
        Effect: 'Allow',
        Action: ['kms:Decrypt', 'kms:Encrypt'],
        Resource: { 'Fn::GetAtt': [keyId, 'Arn'] },
        Condition: { 'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['portal_login'] }, Null: { 'kms:EncryptionContextKeys': 'false' } },
      },
    ]);
    expect(adminStatements.filter((s) => [s.Action].flat().some((a) => a.startsWith('kms:')) && JSON.stringify(s.Condition ?? {}).includes('meta_page_id'))).toEqual([]);
  });

  test('the admin function may put events on the lead bus, and knows its name', () => {
    expect(adminStatements).toContainEqual(expect.objectContaining({ Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } }));
    expect(functions[adminId]!.Properties!.Environment.Variables.LEAD_EVENTS_BUS_NAME).toEqual({ Ref: busId });
  });
});
