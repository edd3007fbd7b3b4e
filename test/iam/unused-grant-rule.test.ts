/**
 * The IAM check's unused-grant rule (test/iam/policy-check.ts reviewGrants), on a made-up template and
 * the calls a test run would record: a call shows that one action on one resource is needed, so a
 * wildcard grant is reported unless the check's configuration names why the role needs it.
 */
import { describe, expect, test } from '@jest/globals';
import { ACCOUNT, evaluate, grantsOf, REGION, reviewGrants, rolePoliciesOf, type Evaluated, type NamedGrants } from './policy-check.ts';

const table = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const template = {
  Resources: {
    LeadsTable: { Type: 'AWS::DynamoDB::Table', Properties: {} },
    ConfigTable: { Type: 'AWS::DynamoDB::Table', Properties: {} },
    WorkerRole: { Type: 'AWS::IAM::Role', Properties: {} },
    WorkerPolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        Roles: [{ Ref: 'WorkerRole' }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: 'dynamodb:*', Resource: table('LeadsTable') },
            { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:PutItem'], Resource: table('ConfigTable') },
          ],
        },
      },
    },
  },
};
const model = { rolePolicies: rolePoliciesOf(template) };
const grants = grantsOf(model, { worker: 'WorkerRole' });
const arn = (id: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${id}`;

/** The calls a run recorded, as the check evaluates them: each must be allowed to count as use. */
const allowedCalls = async (calls: Array<[action: string, tableId: string]>): Promise<Evaluated[]> => {
  const evaluated = await Promise.all(calls.map(([action, id]) => evaluate(model, { principal: 'WorkerRole', action, resource: arn(id), why: 'recorded' })));
  expect(evaluated.map((call) => call.result)).toEqual(calls.map(() => 'Allowed'));
  return evaluated;
};

const nothingNamed: NamedGrants = { unexercised: {}, wildcards: {} };
const labels = (found: ReadonlyArray<{ label: string }>) => found.map((grant) => grant.label);

describe('The unused-grant rule on wildcard grants', () => {
  test('reports dynamodb:* on a table although a call used it', async () => {
    const review = reviewGrants(grants, await allowedCalls([['dynamodb:GetItem', 'LeadsTable'], ['dynamodb:GetItem', 'ConfigTable'], ['dynamodb:PutItem', 'ConfigTable']]), nothingNamed);
    expect(labels(review.unnamedWildcards)).toEqual(['worker: dynamodb:* on arn:aws:dynamodb:table/LeadsTable']);
    expect(review.unused).toEqual([]);
  });

  test('does not report a wildcard grant the configuration names with its reason', async () => {
    const named = { unexercised: {}, wildcards: { 'worker: dynamodb:* on arn:aws:dynamodb:table/LeadsTable': 'a reason the calls cannot show' } };
    const review = reviewGrants(grants, await allowedCalls([['dynamodb:GetItem', 'LeadsTable'], ['dynamodb:GetItem', 'ConfigTable'], ['dynamodb:PutItem', 'ConfigTable']]), named);
    expect(review).toEqual({ unnamedWildcards: [], unused: [], keptUnused: [], staleUnexercised: [], staleWildcards: [] });
  });

  test('a wildcard name is for one role, action and resource: it does not cover the same pattern on another table', async () => {
    const named = { unexercised: {}, wildcards: { 'worker: dynamodb:* on arn:aws:dynamodb:table/ConfigTable': 'named for the wrong table' } };
    const review = reviewGrants(grants, await allowedCalls([['dynamodb:GetItem', 'LeadsTable']]), named);
    expect(labels(review.unnamedWildcards)).toEqual(['worker: dynamodb:* on arn:aws:dynamodb:table/LeadsTable']);
    expect(review.staleWildcards).toEqual(['worker: dynamodb:* on arn:aws:dynamodb:table/ConfigTable']);
  });

  test('still reports a named wildcard grant no call used, as unused', async () => {
    const named = { unexercised: {}, wildcards: { 'worker: dynamodb:* on arn:aws:dynamodb:table/LeadsTable': 'a reason' } };
    const review = reviewGrants(grants, await allowedCalls([['dynamodb:GetItem', 'ConfigTable'], ['dynamodb:PutItem', 'ConfigTable']]), named);
    expect(review.unnamedWildcards).toEqual([]);
    expect(labels(review.unused)).toEqual(['worker: dynamodb:* on arn:aws:dynamodb:table/LeadsTable']);
  });
});

describe('The unused-grant rule on literal grants', () => {
  test('reports a granted action no call used, unless named as kept unused', async () => {
    const calls = await allowedCalls([['dynamodb:GetItem', 'LeadsTable'], ['dynamodb:GetItem', 'ConfigTable']]);
    const putOnConfig = 'worker: dynamodb:PutItem on arn:aws:dynamodb:table/ConfigTable';
    const wildcards = { 'worker: dynamodb:* on arn:aws:dynamodb:table/LeadsTable': 'a reason' };
    expect(labels(reviewGrants(grants, calls, { unexercised: {}, wildcards }).unused)).toEqual([putOnConfig]);
    const kept = reviewGrants(grants, calls, { unexercised: { [putOnConfig]: 'a reason' }, wildcards });
    expect([labels(kept.unused), labels(kept.keptUnused)]).toEqual([[], [putOnConfig]]);
  });

  test('reports a name for an unused grant that a call now uses', async () => {
    const calls = await allowedCalls([['dynamodb:GetItem', 'LeadsTable'], ['dynamodb:GetItem', 'ConfigTable'], ['dynamodb:PutItem', 'ConfigTable']]);
    const named = { unexercised: { 'worker: dynamodb:PutItem on arn:aws:dynamodb:table/ConfigTable': 'no longer true' }, wildcards: {} };
    expect(reviewGrants(grants, calls, named).staleUnexercised).toEqual(['worker: dynamodb:PutItem on arn:aws:dynamodb:table/ConfigTable']);
  });
});
