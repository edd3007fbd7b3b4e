/**
 * The deployed stack's permissions, evaluated by a real IAM policy evaluator against the synthesized
 * template (test/iam/policy-check.ts): what AWS services do with the stack's roles and policies, what
 * the functions do only in Lambda, and what least privilege must refuse. The functions' recorded
 * calls are checked after the whole run (test/iam/reporter.ts).
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { iamRequestsOf } from '../support/aws-calls.ts';
import { ACCOUNT, checkedRoles, evaluate, grantsOf, isWildcard, lambdaOnlyCalls, replayServiceCalls, requestOfRecorded, serviceCalls, stackModel, type IamRequest, type StackModel } from './policy-check.ts';
import { wildcardGrants } from './wildcard-grants.ts';

let model: StackModel;
// A synth: seconds on an idle machine, far more on a busy one.
beforeAll(() => {
  model = stackModel();
}, 180_000);

const denied = async (requests: IamRequest[]) =>
  (await Promise.all(requests.map((request) => evaluate(model, request))))
    .filter((call) => call.result !== 'Allowed')
    .map((call) => `${call.result}: ${call.action} on ${call.resource} (${call.why})`);

describe('What AWS services do with the stack once deployed', () => {
  test('CloudWatch may publish every alarm to the alarm topic, through its encryption key', async () => {
    expect(await denied(serviceCalls(model).filter((call) => call.principal === 'cloudwatch.amazonaws.com'))).toEqual([]);
  });

  test('no one may publish to the alarm topic without TLS, and CloudWatch only for this account', async () => {
    const publish = serviceCalls(model).find((call) => call.action === 'sns:Publish')!;
    expect((await evaluate(model, { ...publish, context: { ...publish.context, 'aws:SecureTransport': 'false' } })).result).toBe('ExplicitlyDenied');
    expect((await evaluate(model, { ...publish, context: { ...publish.context, 'aws:SourceAccount': '999988887777' } })).result).not.toBe('Allowed');
  });

  test("EventBridge Pipes may read the Leads stream (ListStreams on *), invoke the enrichment, put on the bus, dead-letter and log", async () => {
    expect(await denied(serviceCalls(model).filter((call) => call.principal === model.pipeRole))).toEqual([]);
  });

  test('EventBridge may queue replays for the replay rule and live erasures for the repeats rule only; the replay pipe may take them off the queue, invoke the filter, post to the CRM and log', async () => {
    const replays = replayServiceCalls(model);
    expect(replays.map((call) => call.action).sort()).toEqual(
      ['events:InvokeApiDestination', 'lambda:InvokeFunction', 'logs:CreateLogStream', 'logs:PutLogEvents', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage', 'sqs:SendMessage', 'sqs:SendMessage'],
    );
    expect(await denied(replays)).toEqual([]);
    const queueing = replays.find((call) => call.principal === 'events.amazonaws.com')!; // the replay rule's
    const otherRule = `arn:aws:events:ap-south-1:${ACCOUNT}:rule/another-rule`;
    expect((await evaluate(model, { ...queueing, context: { 'aws:SourceArn': otherRule } })).result).not.toBe('Allowed');
  });

  test("Lambda's SQS poller may take the Meta worker's messages, and Lambda may write each function's log", async () => {
    const replays = new Set(replayServiceCalls(model).map((call) => `${call.principal} ${call.action} ${call.resource}`));
    const lambdaCalls = serviceCalls(model).filter(
      (call) => call.principal !== 'cloudwatch.amazonaws.com' && call.principal !== model.pipeRole && !replays.has(`${call.principal} ${call.action} ${call.resource}`),
    );
    expect(lambdaCalls.length).toBeGreaterThan(9 * 2);
    expect(await denied(lambdaCalls)).toEqual([]);
  });
});

describe('What the functions do only in Lambda (the tests use local stand-ins there)', () => {
  test('read the person lookup key and the Meta app secret, seal and open challenge secrets and page tokens, queue and back off leadgen changes', async () => {
    expect(await denied(lambdaOnlyCalls(model))).toEqual([]);
  });
});

describe('Least privilege: what the roles must not be able to do', () => {
  const leadsArn = () => model.getAtt('LeadsTable', 'Arn');
  const role = (fn: keyof StackModel['functions']) => model.functions[fn].role;
  const refused = async (request: Omit<IamRequest, 'why'>) => (await evaluate(model, { ...request, why: 'least privilege' })).result;

  test("only the website function updates a Leads item outside a lead's and its key's partitions (its rejection counter)", async () => {
    const updating = (fn: keyof StackModel['functions'], partition: string) =>
      refused({ principal: role(fn), action: 'dynamodb:UpdateItem', resource: leadsArn(), context: { 'dynamodb:LeadingKeys': [partition] } });
    expect(await updating('website', 'REJECTIONRATE#key_1#2026-11-25T10:00')).toBe('Allowed');
    for (const fn of ['portala', 'portalb', 'social', 'google-ads', 'meta-worker'] as const) {
      expect([fn, await updating(fn, 'REJECTIONRATE#key_1#2026-11-25T10:00')]).toEqual([fn, 'ImplicitlyDenied']);
      expect([fn, await updating(fn, 'REJECTIONS#acc-1')]).toEqual([fn, 'ImplicitlyDenied']);
      // A repeat settled after an erasure took its original: its lead and its key's record.
      expect([fn, await updating(fn, 'LEADS#acc-1#PRJ-1')]).toEqual([fn, 'Allowed']);
      expect([fn, await updating(fn, 'IDEMPOTENCY#acc-1#0a1b')]).toEqual([fn, 'Allowed']);
    }
  });

  test('the replay filter reads lead items only, and writes nothing: no idempotency record, person lookup item or rejection', async () => {
    const reading = (action: string, partition: string) => refused({ principal: role('lead-replays'), action, resource: leadsArn(), context: { 'dynamodb:LeadingKeys': [partition] } });
    expect(await reading('dynamodb:GetItem', 'LEADS#acc-1#PRJ-1')).toBe('Allowed');
    for (const partition of ['IDEMPOTENCY#acc-1#0a1b', 'PERSON#acc-1#ab12#0', 'REJECTIONS#acc-1']) {
      expect([partition, await reading('dynamodb:GetItem', partition)]).toEqual([partition, 'ImplicitlyDenied']);
    }
    for (const action of ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchGetItem']) {
      expect([action, await reading(action, 'LEADS#acc-1#PRJ-1')]).toEqual([action, 'ImplicitlyDenied']);
    }
    const config = model.getAtt('ConfigTable', 'Arn');
    expect(await refused({ principal: role('lead-replays'), action: 'dynamodb:GetItem', resource: config, context: { 'dynamodb:LeadingKeys': ['LEADS#acc-1#PRJ-1'] } })).toBe('ImplicitlyDenied');
  });

  test("the replay pipe cannot put events on the bus (a replay never re-enters it), and the stream pipes cannot call the CRM", async () => {
    const bus = model.getAtt(model.idOf('AWS::Events::EventBus'), 'Arn');
    expect(await refused({ principal: model.replayPipeRole, action: 'events:PutEvents', resource: bus })).toBe('ImplicitlyDenied');
    const destination = replayServiceCalls(model).find((call) => call.action === 'events:InvokeApiDestination')!.resource;
    expect(await refused({ principal: model.pipeRole, action: 'events:InvokeApiDestination', resource: destination })).toBe('ImplicitlyDenied');
  });

  // The website function's rejection counter is granted on the whole table (no partition condition), so it is left out here.
  test("the call webhook updates the per-key request counters, and no rejection counter or record; no other function but the website's may update them", async () => {
    const updating = (fn: keyof StackModel['functions'], partition: string) =>
      refused({ principal: role(fn), action: 'dynamodb:UpdateItem', resource: leadsArn(), context: { 'dynamodb:LeadingKeys': [partition] } });
    expect(await updating('calls', 'KEYRATE#key_1#2026-11-25T10:00')).toBe('Allowed');
    expect(await updating('calls', 'REJECTIONRATE#key_1#2026-11-25T10:00')).toBe('ImplicitlyDenied');
    expect(await updating('calls', 'REJECTIONS#acc-1#0')).toBe('ImplicitlyDenied');
    for (const fn of ['portala', 'portalb', 'social', 'google-ads', 'meta-worker'] as const) {
      expect([fn, await updating(fn, 'KEYRATE#key_1#2026-11-25T10:00')]).toEqual([fn, 'ImplicitlyDenied']);
    }
  });

  test('the Google Ads webhook cannot BatchWriteItem on Leads', async () => {
    expect(await refused({ principal: role('google-ads'), action: 'dynamodb:BatchWriteItem', resource: leadsArn() })).toBe('ImplicitlyDenied');
  });

  test("the admin function can only Query the by_reason index, never write or read items through it", async () => {
    const index = `${leadsArn()}/index/by_reason`;
    expect(await refused({ principal: role('admin'), action: 'dynamodb:Query', resource: index })).toBe('Allowed');
    for (const action of ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchGetItem']) {
      expect([action, await refused({ principal: role('admin'), action, resource: index })]).toEqual([action, 'ImplicitlyDenied']);
    }
  });

  test("the Meta worker opens page tokens only: it cannot open a browser key's challenge secret", async () => {
    const key = model.getAtt(model.idOf('AWS::KMS::Key', /page access tokens/), 'Arn');
    const challenge = { 'kms:EncryptionContextKeys': ['lead_intake_captcha_account'], 'kms:EncryptionContext/lead_intake_captcha_account': 'acc-1' };
    expect(await refused({ principal: role('meta-worker'), action: 'kms:Decrypt', resource: key, context: challenge })).toBe('ImplicitlyDenied');
    expect(await refused({ principal: role('meta-worker'), action: 'kms:Decrypt', resource: key })).toBe('ImplicitlyDenied');
  });
});

describe('Wildcard grants (an action or resource with * or ?)', () => {
  test('each is named with its reason in test/iam/wildcard-grants.ts, and each name is one of the stack’s grants', () => {
    const wildcards = grantsOf(model, checkedRoles(model)).filter(isWildcard).map((grant) => grant.label);
    const named = wildcardGrants(model);
    expect(wildcards.filter((label) => !(label in named))).toEqual([]);
    expect(Object.keys(named).filter((label) => !wildcards.includes(label))).toEqual([]);
    expect(Object.entries(named).filter(([, reason]) => reason.trim().length < 40)).toEqual([]);
  });
});

describe('Recorded calls, as the check evaluates them', () => {
  test("a transaction is recorded part by part, as the actions IAM authorises, with each part's partition key kind", () => {
    const parts = iamRequestsOf('TransactWriteItemsCommand', {
      TransactItems: [
        { Put: { TableName: 't1_Leads', Item: { pk: { S: 'ACC#acc-1#PRJ#1' } } } },
        { Update: { TableName: 't1_Leads', Key: { pk: { S: 'IDEM#k' } } } },
        { ConditionCheck: { TableName: 't1_Config', Key: { pk: { S: 'GOOGLEFORM#123' } } } },
      ],
    });
    expect(parts).toEqual([
      { action: 'dynamodb:PutItem', table: 'Leads', leadingKeys: ['ACC#acc-1#PRJ#1'] },
      { action: 'dynamodb:UpdateItem', table: 'Leads', leadingKeys: ['IDEM#k'] },
      { action: 'dynamodb:ConditionCheckItem', table: 'Config', leadingKeys: ['GOOGLEFORM#123'] },
    ]);
  });

  test("the Google Ads webhook's check of a form item is allowed, and of any other Config item refused (dynamodb:LeadingKeys)", async () => {
    const check = (key: string) => requestOfRecorded(model, { fn: 'google-ads', action: 'dynamodb:ConditionCheckItem', table: 'Config', leadingKeys: [key] });
    expect((await evaluate(model, check('GOOGLEFORM#'))).result).toBe('Allowed');
    expect((await evaluate(model, check('KEY#'))).result).toBe('ImplicitlyDenied');
  });

  test("the call webhook's check of a number item is allowed, and of a form's or any other Config item refused (dynamodb:LeadingKeys)", async () => {
    const check = (key: string) => requestOfRecorded(model, { fn: 'calls', action: 'dynamodb:ConditionCheckItem', table: 'Config', leadingKeys: [key] });
    expect((await evaluate(model, check('CALLNUMBERS#acc-1'))).result).toBe('Allowed');
    expect((await evaluate(model, check('GOOGLEFORM#123'))).result).toBe('ImplicitlyDenied');
    expect((await evaluate(model, check('KEY#'))).result).toBe('ImplicitlyDenied');
  });
});
