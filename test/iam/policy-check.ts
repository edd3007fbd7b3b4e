/**
 * The IAM check: every AWS call the service makes, and every call AWS services make on its behalf,
 * evaluated against the synthesized template's policies by a real IAM policy evaluator
 * (`@cloud-copilot/iam-simulate`, dev-only: docs/decisions/0008-iam-check-and-runtime-client.md).
 *
 * - The functions' calls: those the handler tests recorded (test/support/aws-calls.ts), and those only
 *   made in Lambda, where the tests use local stand-ins (`lambdaOnlyCalls`).
 * - AWS's calls with the stack's roles and resource policies (`serviceCalls`): CloudWatch alarms to the
 *   SNS topic and its KMS key, EventBridge Pipes' source, enrichment, target and dead-letter queue,
 *   EventBridge queueing replays and the replay pipe's poller, filter and CRM target, Lambda's SQS
 *   poller, Lambda writing each function's logs.
 * The stack is the one that delivers to the CRM (test/cdk/synth.ts crmDeliveryContext): its replay
 * path exists only then.
 * A denied call is a deploy that would not work. A granted action no call used is more than the
 * service needs: it fails unless `unexercisedGrants` names it with a reason. A wildcard grant is more
 * than any call can show the service needs: it fails unless `wildcardGrants` names it with a reason.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { crmDeliveryContext, functionIdPrefix, synthesize } from '../cdk/synth.ts';
import { functionNamesOf, type FunctionName, type RecordedCall } from '../support/aws-calls.ts';
import { leadSources } from '../../shared/sources/registry.ts';

export const ACCOUNT = '111122223333';
export const REGION = 'ap-south-1';

type Template = { Resources: Record<string, { Type: string; Properties?: any }> };
type Policy = { Version?: string; Statement: Array<Record<string, any>> };

/** One request to evaluate: who asks, for what, on what, with which context. */
export interface IamRequest {
  /** The role's logical id, or a service principal (`cloudwatch.amazonaws.com`). */
  readonly principal: string;
  readonly action: string;
  readonly resource: string;
  readonly context?: Record<string, string | string[]>;
  /** The resource's own policy (topic, queue, key), when it has one. */
  readonly resourcePolicy?: Policy;
  /** Who makes the call and why, for the report. */
  readonly why: string;
}

export interface Evaluated extends IamRequest {
  readonly result: string;
}

const fakeStreamLabel = '2026-01-01T00:00:00.000';

/** Concrete values for the template's intrinsics, in one made-up account and region. */
export const resolverOf = (template: Template) => {
  const type = (id: string) => template.Resources[id]?.Type;
  const ref = (id: string): string => {
    if (id === 'AWS::AccountId') return ACCOUNT;
    if (id === 'AWS::Region') return REGION;
    if (id === 'AWS::Partition') return 'aws';
    if (id === 'AWS::URLSuffix') return 'amazonaws.com';
    switch (type(id)) {
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${id}-AbCdEf`;
      case 'AWS::SQS::Queue':
        return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${id}`;
      case 'AWS::SNS::Topic':
        return `arn:aws:sns:${REGION}:${ACCOUNT}:${id}`;
      default:
        return id; // tables, functions, roles, log groups, buses: their name
    }
  };
  const getAtt = (id: string, attribute: string): string => {
    const at = `${REGION}:${ACCOUNT}`;
    switch (`${type(id)}.${attribute}`) {
      case 'AWS::DynamoDB::Table.Arn':
        return `arn:aws:dynamodb:${at}:table/${id}`;
      case 'AWS::DynamoDB::Table.StreamArn':
        return `arn:aws:dynamodb:${at}:table/${id}/stream/${fakeStreamLabel}`;
      case 'AWS::Logs::LogGroup.Arn':
        return `arn:aws:logs:${at}:log-group:${id}:*`;
      case 'AWS::Lambda::Function.Arn':
        return `arn:aws:lambda:${at}:function:${id}`;
      case 'AWS::KMS::Key.Arn':
        return `arn:aws:kms:${at}:key/${id}`;
      case 'AWS::SQS::Queue.Arn':
        return `arn:aws:sqs:${at}:${id}`;
      case 'AWS::Events::EventBus.Arn':
        return `arn:aws:events:${at}:event-bus/${id}`;
      case 'AWS::Events::Rule.Arn':
        return `arn:aws:events:${at}:rule/${id}`;
      case 'AWS::Events::ApiDestination.Arn':
        return `arn:aws:events:${at}:api-destination/${id}/0123abcd-0000-0000-0000-000000000000`;
      case 'AWS::IAM::Role.Arn':
        return `arn:aws:iam::${ACCOUNT}:role/${id}`;
      default:
        throw new Error(`no value for Fn::GetAtt ${id}.${attribute} (${type(id)})`);
    }
  };
  const resolve = (value: any): any => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value && typeof value === 'object') {
      if ('Ref' in value) return ref(value.Ref);
      if ('Fn::GetAtt' in value) return getAtt(value['Fn::GetAtt'][0], value['Fn::GetAtt'][1]);
      if ('Fn::Join' in value) return (resolve(value['Fn::Join'][1]) as string[]).join(value['Fn::Join'][0]);
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    }
    return value;
  };
  return { resolve, ref, getAtt };
};

/** Each role's identity policies (by the role's logical id), resolved. */
export const rolePoliciesOf = (template: Template): Map<string, Policy[]> => {
  const { resolve } = resolverOf(template);
  const rolePolicies = new Map<string, Policy[]>();
  for (const policy of Object.values(template.Resources).filter((r) => r.Type === 'AWS::IAM::Policy')) {
    for (const role of policy.Properties.Roles as Array<{ Ref: string }>) {
      rolePolicies.set(role.Ref, [...(rolePolicies.get(role.Ref) ?? []), resolve(policy.Properties.PolicyDocument)]);
    }
  }
  return rolePolicies;
};

/**
 * The functions of the stack by the names the recorder uses: each declared source's by its construct path
 * (its descriptor's `stack.functionPath`, its worker's `worker.functionPath`: the function's logical id
 * begins with them), the service's own by their descriptions.
 */
const functionFinders: Record<FunctionName, (logicalId: string, description: string) => boolean> = {
  ...(Object.fromEntries(
    leadSources.flatMap((source) => {
      const [webhook, worker] = functionNamesOf(source);
      const at = (functionPath: readonly string[]) => (logicalId: string) => logicalId.startsWith(functionIdPrefix(functionPath));
      return [[webhook!, at(source.stack.functionPath)], ...(source.worker ? [[worker!, at(source.worker.functionPath)]] : [])];
    }),
  ) as Record<FunctionName, (logicalId: string) => boolean>),
  admin: (_, description) => /admin API/.test(description),
  'lead-events': (_, description) => /Lead Created events/.test(description),
  'lead-replays': (_, description) => /replayed lead events to the CRM/.test(description),
  'source-watch': (_, description) => /quiet-source watch/.test(description),
  'retention-sweep': (_, description) => /retention sweep/.test(description),
  'portal-pull': (_, description) => /portal pulls, each queued/.test(description),
  'portal-schedule': (_, description) => /portal pull schedule/.test(description),
};
export const functionNames = Object.keys(functionFinders) as FunctionName[];

/** The synthesized stack, resolved: each role's policies, each function's role, log group and environment, the resource policies. */
export const stackModel = (template: Template = synthesize({ context: crmDeliveryContext }).template.toJSON() as Template) => {
  const { resolve, getAtt, ref } = resolverOf(template);
  const entries = Object.entries(template.Resources);
  const ofType = (t: string) => entries.filter(([, r]) => r.Type === t);

  const rolePolicies = rolePoliciesOf(template);
  const functions = Object.fromEntries(
    functionNames.map((name) => {
      const found = ofType('AWS::Lambda::Function').filter(([id, fn]) => functionFinders[name](id, fn.Properties.Description));
      if (found.length !== 1) throw new Error(`expected one function for ${name}, found ${found.length}`);
      const [id, fn] = found[0]!;
      return [
        name,
        {
          id,
          arn: getAtt(id, 'Arn'),
          role: fn.Properties.Role['Fn::GetAtt'][0] as string,
          logGroup: fn.Properties.LoggingConfig.LogGroup.Ref as string,
          environment: resolve(fn.Properties.Environment?.Variables ?? {}) as Record<string, string>,
        },
      ];
    }),
  ) as Record<FunctionName, { id: string; arn: string; role: string; logGroup: string; environment: Record<string, string> }>;

  const idOf = (t: string, description?: RegExp) => {
    const found = ofType(t).filter(([, r]) => !description || description.test(r.Properties?.Description ?? r.Properties?.DisplayName ?? ''));
    if (found.length !== 1) throw new Error(`expected one ${t}${description ? ` matching ${description}` : ''}, found ${found.length}`);
    return found[0]![0];
  };
  /** The resource policy of a topic or queue (they may have none) and of a KMS key. */
  const resourcePolicyOf = (id: string): Policy | undefined => {
    const r = template.Resources[id]!;
    if (r.Type === 'AWS::KMS::Key') return resolve(r.Properties.KeyPolicy);
    const [policyType, listKey] = r.Type === 'AWS::SNS::Topic' ? ['AWS::SNS::TopicPolicy', 'Topics'] : ['AWS::SQS::QueuePolicy', 'Queues'];
    const policies = ofType(policyType).filter(([, p]) => (p.Properties[listKey] as Array<{ Ref: string }>).some((x) => x.Ref === id));
    if (policies.length === 0) return undefined;
    return { Version: '2012-10-17', Statement: policies.flatMap(([, p]) => resolve(p.Properties.PolicyDocument).Statement) };
  };
  const roleOfPipe = (description: RegExp) => template.Resources[idOf('AWS::Pipes::Pipe', description)]!.Properties.RoleArn['Fn::GetAtt'][0] as string;
  /** The role of the pipes that read the Leads stream. */
  const pipeRole = roleOfPipe(/^Lead Created events/);
  /** The role of the replay pipe (lib/constructs/lead-replays.ts), in a stack that delivers to the CRM. */
  const replayPipeRole = roleOfPipe(/^Replayed lead events/);
  return { template, resolve, getAtt, ref, rolePolicies, functions, idOf, resourcePolicyOf, pipeRole, replayPipeRole };
};

export type StackModel = ReturnType<typeof stackModel>;

const principalArn = (principal: string) => (principal.includes('.amazonaws.com') ? principal : `arn:aws:iam::${ACCOUNT}:role/${principal}`);

/** Runs one request through the evaluator: identity policies of the role (none for a service principal) and the resource's policy. */
export const evaluate = async (model: Pick<StackModel, 'rolePolicies'>, request: IamRequest): Promise<Evaluated> => {
  const identityPolicies = request.principal.includes('.amazonaws.com')
    ? []
    : (model.rolePolicies.get(request.principal) ?? []).map((policy, i) => ({ name: `${request.principal}-${i}`, policy }));
  const result = await runSimulation(
    {
      request: {
        principal: principalArn(request.principal),
        action: request.action,
        resource: { resource: request.resource, accountId: ACCOUNT },
        contextVariables: { 'aws:SecureTransport': 'true', ...request.context },
      },
      identityPolicies,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(request.resourcePolicy && { resourcePolicy: request.resourcePolicy }),
    },
    {},
  );
  const outcome = result.resultType === 'error' ? `error: ${JSON.stringify(result.errors)}` : result.overallResult;
  return { ...request, result: outcome };
};

/** A recorded DynamoDB call as an IAM request of its function's role. */
export const requestOfRecorded = (model: StackModel, call: RecordedCall): IamRequest => {
  const table = model.getAtt(`${call.table}Table`, 'Arn');
  return {
    principal: model.functions[call.fn].role,
    action: call.action,
    resource: call.index ? `${table}/index/${call.index}` : table,
    context: call.leadingKeys.length > 0 ? { 'dynamodb:LeadingKeys': [...call.leadingKeys] } : {},
    why: `${call.fn} (recorded in the handler tests)`,
  };
};

/**
 * The calls the functions make only in Lambda: there the person key, the Meta app secret, the page-token
 * key and the queue are AWS's, where the handler tests use local stand-ins (a fixed key, a local cipher,
 * an in-memory queue). Each names the code that makes it.
 */
export const lambdaOnlyCalls = (model: StackModel): IamRequest[] => {
  const personKey = model.ref(model.idOf('AWS::SecretsManager::Secret', /person lookup items/));
  const appSecret = model.ref(model.idOf('AWS::SecretsManager::Secret', /Meta app/));
  const pageTokenKey = model.getAtt(model.idOf('AWS::KMS::Key', /page access tokens/), 'Arn');
  const queueId = Object.entries(model.template.Resources).find(([id, r]) => r.Type === 'AWS::SQS::Queue' && /LeadgenQueue/.test(id))![0];
  const queue = model.getAtt(queueId, 'Arn');
  const queuePolicy = model.resourcePolicyOf(queueId);
  const keyPolicy = model.resourcePolicyOf(model.idOf('AWS::KMS::Key', /page access tokens/));
  const role = (fn: FunctionName) => model.functions[fn].role;
  // Whatever makes a lead reads the person key: each request source's function, each worker, the portal pull and the admin function;
  // and the retention sweep, which erases leads as the admin function does (shared/retention.ts).
  const personKeyReaders: FunctionName[] = [...leadSources.map((source) => functionNamesOf(source).at(-1)!), 'portal-pull', 'admin', 'retention-sweep'];
  return [
    ...personKeyReaders.map((fn) => ({
      principal: role(fn),
      action: 'secretsmanager:GetSecretValue',
      resource: personKey,
      why: `${fn}: the person lookup key, read once per container (shared/person-keyring.ts)`,
    })),
    {
      principal: role('website'),
      action: 'kms:Decrypt',
      resource: pageTokenKey,
      resourcePolicy: keyPolicy,
      context: { 'kms:EncryptionContextKeys': ['lead_intake_captcha_account'], 'kms:EncryptionContext/lead_intake_captcha_account': 'acc-1' },
      why: "website: opens a browser key's challenge secret (shared/captcha/secrets.ts)",
    },
    {
      principal: role('admin'),
      action: 'kms:Encrypt',
      resource: pageTokenKey,
      resourcePolicy: keyPolicy,
      context: { 'kms:EncryptionContextKeys': ['lead_intake_captcha_account'], 'kms:EncryptionContext/lead_intake_captcha_account': 'acc-1' },
      why: "admin: seals a browser key's challenge secret (shared/captcha/secrets.ts)",
    },
    // Portal logins through the admin API (CONTRACT.md section 17): a credential sealed on connect.
    {
      principal: role('admin'),
      action: 'kms:Encrypt',
      resource: pageTokenKey,
      resourcePolicy: keyPolicy,
      context: { 'kms:EncryptionContextKeys': ['portal_login'], 'kms:EncryptionContext/portal_login': '99acres#broker-1' },
      why: "admin: seals a portal login's credential (shared/pulled/logins.ts portalCredentialScope)",
    },
    {
      principal: role('admin'),
      action: 'lambda:InvokeFunction',
      resource: model.functions['portal-pull'].arn,
      why: 'admin: a pull asked for through the admin API, run by the pull function from its fixed address (shared/pulled/remote-pull.ts)',
    },
    // Every function of a source the Meta app signs (Meta's webhook and worker, WhatsApp's webhook).
    ...leadSources
      .filter((source) => source.authentication === 'platform-signature')
      .flatMap(functionNamesOf)
      .map((fn) => ({
        principal: role(fn),
        action: 'secretsmanager:GetSecretValue',
        resource: appSecret,
        why: `${fn}: the Meta app secret and verify token (shared/meta-app.ts)`,
      })),
    {
      principal: role('meta-webhook'),
      action: 'sqs:SendMessage',
      resource: queue,
      resourcePolicy: queuePolicy,
      why: 'meta-webhook: each leadgen change onto the queue (shared/meta/queue.ts)',
    },
    {
      principal: role('meta-worker'),
      action: 'kms:Decrypt',
      resource: pageTokenKey,
      resourcePolicy: keyPolicy,
      context: { 'kms:EncryptionContextKeys': ['meta_page_id'], 'kms:EncryptionContext/meta_page_id': '1234567890' },
      why: "meta-worker: opens a page's access token (shared/meta/token-cipher.ts)",
    },
    {
      principal: role('source-watch'),
      action: 'events:PutEvents',
      resource: model.getAtt(model.idOf('AWS::Events::EventBus'), 'Arn'),
      why: 'source-watch: Source Silent and Source Resumed on the lead bus (shared/source-watch.ts eventBridgePublisher)',
    },
    {
      principal: role('meta-worker'),
      action: 'sqs:ChangeMessageVisibility',
      resource: queue,
      resourcePolicy: queuePolicy,
      why: "meta-worker: its back-off, a failed change's visibility (shared/meta/queue.ts)",
    },
    ...replayQueueSends(model),
    ...portalPullCalls(model),
  ];
};

/** The portal pulls in Lambda (lib/constructs/portal-pulls.ts): the schedule queues logins; each pull opens its credential and may tell the bus. */
const portalPullCalls = (model: StackModel): IamRequest[] => {
  const queues = Object.entries(model.template.Resources).filter(([id, r]) => r.Type === 'AWS::SQS::Queue' && /^PortalPullsQueue/.test(id));
  const pageTokenKeyId = model.idOf('AWS::KMS::Key', /page access tokens/);
  return [
    ...queues.map(([id]) => ({
      principal: model.functions['portal-schedule'].role,
      action: 'sqs:SendMessage',
      resource: model.getAtt(id, 'Arn'),
      resourcePolicy: model.resourcePolicyOf(id),
      why: "portal-schedule: each connected login's pull, onto its portal's queue (shared/pulled/queue.ts)",
    })),
    {
      principal: model.functions['portal-pull'].role,
      action: 'kms:Decrypt',
      resource: model.getAtt(pageTokenKeyId, 'Arn'),
      resourcePolicy: model.resourcePolicyOf(pageTokenKeyId),
      context: { 'kms:EncryptionContextKeys': ['portal_login'], 'kms:EncryptionContext/portal_login': '99acres#broker-1' },
      why: "portal-pull: opens a portal login's credential (shared/pulled/logins.ts portalCredentialScope)",
    },
    {
      principal: model.functions['portal-pull'].role,
      action: 'events:PutEvents',
      resource: model.getAtt(model.idOf('AWS::Events::EventBus'), 'Arn'),
      why: 'portal-pull: Portal Failing and Portal Recovered of a scheduled pull (shared/pulled/bus.ts)',
    },
  ];
};

/** The replay filter's re-checks and held erasures, back onto the replay queue (shared/lead-replay-queue.ts). */
const replayQueueSends = (model: StackModel): IamRequest[] => {
  const definition = model.template.Resources[model.idOf('AWS::Pipes::Pipe', /^Replayed lead events/)]!.Properties;
  const queueId = definition.Source['Fn::GetAtt'][0] as string;
  return [
    {
      principal: model.functions['lead-replays'].role,
      action: 'sqs:SendMessage',
      resource: model.getAtt(queueId, 'Arn'),
      resourcePolicy: model.resourcePolicyOf(queueId),
      why: 'lead-replays: a re-check of each lead passed on, onto the replay queue (shared/lead-replay-queue.ts)',
    },
  ];
};

/** What AWS services do with the stack's roles and resource policies once it is deployed. */
export const serviceCalls = (model: StackModel): IamRequest[] => {
  const topicId = model.idOf('AWS::SNS::Topic');
  const topic = model.ref(topicId);
  const topicKeyId = model.idOf('AWS::KMS::Key', /alarm topic/);
  const topicKey = model.getAtt(topicKeyId, 'Arn');
  const fromCloudWatch = { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:any` };
  const pipe = model.pipeRole;
  const leadsStream = model.getAtt('LeadsTable', 'StreamArn');
  const pipeDefinition = model.template.Resources[model.idOf('AWS::Pipes::Pipe', /^Lead Created events/)]!.Properties;
  const pipeDeadLetterQueueId = pipeDefinition.SourceParameters.DynamoDBStreamParameters.DeadLetterConfig.Arn['Fn::GetAtt'][0];
  const pipeLogGroup = pipeDefinition.LogConfiguration.CloudwatchLogsLogDestination.LogGroupArn['Fn::GetAtt'][0];
  const queueId = Object.entries(model.template.Resources).find(([id, r]) => r.Type === 'AWS::SQS::Queue' && /LeadgenQueue/.test(id))![0];
  const logStream = (logGroupId: string) => `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${logGroupId}:log-stream:2026/01/01/[$LATEST]0123456789abcdef`;
  return [
    ...['sns:Publish'].map((action) => ({
      principal: 'cloudwatch.amazonaws.com',
      action,
      resource: topic,
      resourcePolicy: model.resourcePolicyOf(topicId),
      context: fromCloudWatch,
      why: 'CloudWatch: an alarm (and its recovery) to the alarm topic',
    })),
    ...['kms:GenerateDataKey', 'kms:Decrypt'].map((action) => ({
      principal: 'cloudwatch.amazonaws.com',
      action,
      resource: topicKey,
      resourcePolicy: model.resourcePolicyOf(topicKeyId),
      context: fromCloudWatch,
      why: "CloudWatch: the alarm topic's encryption key, to publish to it",
    })),
    ...['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'].map((action) => ({
      principal: pipe,
      action,
      resource: leadsStream,
      why: "EventBridge Pipes: reads the Leads table's stream (the pipes' source)",
    })),
    {
      principal: pipe,
      action: 'dynamodb:ListStreams',
      resource: '*',
      why: 'EventBridge Pipes: lists the streams of its source (an action IAM checks on "*" only)',
    },
    {
      principal: pipe,
      action: 'lambda:InvokeFunction',
      resource: model.functions['lead-events'].arn,
      why: "EventBridge Pipes: the pipes' enrichment function",
    },
    {
      principal: pipe,
      action: 'events:PutEvents',
      resource: model.getAtt(model.idOf('AWS::Events::EventBus'), 'Arn'),
      why: "EventBridge Pipes: the pipes' target, the lead bus",
    },
    {
      principal: pipe,
      action: 'sqs:SendMessage',
      resource: model.getAtt(pipeDeadLetterQueueId, 'Arn'),
      resourcePolicy: model.resourcePolicyOf(pipeDeadLetterQueueId),
      why: "EventBridge Pipes: a batch that failed every retry to the pipes' dead-letter queue",
    },
    ...['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({
      principal: pipe,
      action,
      resource: logStream(pipeLogGroup),
      why: "EventBridge Pipes: the pipes' error log",
    })),
    ...replayServiceCalls(model),
    ...['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'].map((action) => ({
      principal: model.functions['meta-worker'].role,
      action,
      resource: model.getAtt(queueId, 'Arn'),
      resourcePolicy: model.resourcePolicyOf(queueId),
      why: "Lambda's SQS poller, with the Meta worker's role: takes leadgen changes off the queue for it",
    })),
    ...sourceWatchServiceCalls(model),
    ...Object.entries(model.template.Resources)
      .filter(([id, r]) => r.Type === 'AWS::SQS::Queue' && /^PortalPullsQueue/.test(id))
      .flatMap(([id]) =>
        ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'].map((action) => ({
          principal: model.functions['portal-pull'].role,
          action,
          resource: model.getAtt(id, 'Arn'),
          resourcePolicy: model.resourcePolicyOf(id),
          why: "Lambda's SQS poller, with the pull function's role: takes each queued pull off its portal's queue",
        })),
      ),
    ...functionNames.flatMap((fn) =>
      ['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({
        principal: model.functions[fn].role,
        action,
        resource: logStream(model.functions[fn].logGroup),
        why: `Lambda: ${fn}'s log lines, to its own log group`,
      })),
    ),
  ];
};

/**
 * The quiet-source watch's stream mapping (lib/constructs/source-watch.ts): Lambda's poller reads the
 * Leads stream with the function's role, and sends what failed every retry to its dead-letter queue.
 */
const sourceWatchServiceCalls = (model: StackModel): IamRequest[] => {
  const role = model.functions['source-watch'].role;
  const mapping = Object.values(model.template.Resources).find((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(r.Properties.FunctionName).includes(model.functions['source-watch'].id))!;
  const queue = model.resolve(mapping.Properties.DestinationConfig.OnFailure.Destination) as string;
  return [
    ...['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'].map((action) => ({
      principal: role,
      action,
      resource: model.getAtt('LeadsTable', 'StreamArn'),
      why: "Lambda's stream poller, with the quiet-source watch's role: reads the Leads stream for it",
    })),
    { principal: role, action: 'dynamodb:ListStreams', resource: '*', why: "Lambda's stream poller: lists the table's streams (an action IAM checks on \"*\" only)" },
    { principal: role, action: 'sqs:SendMessage', resource: queue, why: "Lambda's stream poller: records that failed every retry, to the watch's dead-letter queue" },
  ];
};

/**
 * The replay path (lib/constructs/lead-replays.ts): EventBridge queues each replayed event for the
 * replay rule; the replay pipe polls the queue, invokes the filter, posts what it returns to the CRM's
 * API destination and logs its errors.
 */
export const replayServiceCalls = (model: StackModel): IamRequest[] => {
  const pipe = model.replayPipeRole;
  const definition = model.template.Resources[model.idOf('AWS::Pipes::Pipe', /^Replayed lead events/)]!.Properties;
  const queueId = definition.Source['Fn::GetAtt'][0] as string;
  const ruleId = model.idOf('AWS::Events::Rule', /^Replayed/);
  const logGroup = definition.LogConfiguration.CloudwatchLogsLogDestination.LogGroupArn['Fn::GetAtt'][0] as string;
  return [
    {
      principal: 'events.amazonaws.com',
      action: 'sqs:SendMessage',
      resource: model.getAtt(queueId, 'Arn'),
      resourcePolicy: model.resourcePolicyOf(queueId),
      context: { 'aws:SourceArn': model.getAtt(ruleId, 'Arn') },
      why: 'EventBridge: the replay rule queues each replayed event',
    },
    {
      principal: 'events.amazonaws.com',
      action: 'sqs:SendMessage',
      resource: model.getAtt(queueId, 'Arn'),
      resourcePolicy: model.resourcePolicyOf(queueId),
      context: { 'aws:SourceArn': model.getAtt(model.idOf('AWS::Events::Rule', /^Each live Lead Erased/), 'Arn') },
      why: 'EventBridge: the erasure repeats rule queues each live Lead Erased, to be delivered again',
    },
    ...['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'].map((action) => ({
      principal: pipe,
      action,
      resource: model.getAtt(queueId, 'Arn'),
      resourcePolicy: model.resourcePolicyOf(queueId),
      why: "EventBridge Pipes: the replay pipe's source, the replay queue",
    })),
    {
      principal: pipe,
      action: 'lambda:InvokeFunction',
      resource: model.functions['lead-replays'].arn,
      why: "EventBridge Pipes: the replay pipe's enrichment, the filter that drops erased leads",
    },
    {
      principal: pipe,
      action: 'events:InvokeApiDestination',
      resource: model.getAtt(definition.Target['Fn::GetAtt'][0], 'Arn'),
      why: "EventBridge Pipes: the replay pipe's target, the CRM's API destination",
    },
    ...['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({
      principal: pipe,
      action,
      resource: `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${logGroup}:log-stream:replays`,
      why: "EventBridge Pipes: the replay pipe's errors, to the pipes' error log",
    })),
  ];
};

/** `*` and `?` of an IAM resource or action pattern. */
const matches = (pattern: string, value: string) =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i').test(value);

export interface Grant {
  readonly role: string;
  readonly action: string;
  readonly resource: string;
  /** `role: action on resource`, with the account and region left out: the key of `unexercisedGrants` and `wildcardGrants`. */
  readonly label: string;
}

/** A grant's label: the role's name in the check, the action, and the resource without the account and region. */
export const grantLabel = (name: string, action: string, resource: string) =>
  `${name}: ${action} on ${resource.replace(`${REGION}:${ACCOUNT}:`, '').replace(`::${ACCOUNT}:`, '::')}`;

/** Every action each checked role is allowed, on each resource, as the template writes it. */
export const grantsOf = (model: Pick<StackModel, 'rolePolicies'>, roles: Record<string, string>): Grant[] =>
  Object.entries(roles).flatMap(([name, role]) =>
    (model.rolePolicies.get(role) ?? []).flatMap((policy) =>
      policy.Statement.filter((s) => s.Effect === 'Allow').flatMap((s) =>
        [s.Action].flat().flatMap((action: string) => [s.Resource].flat().map((resource: string) => ({ role, action, resource, label: grantLabel(name, action, resource) }))),
      ),
    ),
  );

/** An action or resource IAM matches as a pattern (`*`, `?`): what it grants is more than any one call shows. */
export const isWildcard = (grant: Grant) => /[*?]/.test(grant.action) || /[*?]/.test(grant.resource);

/** Grants kept for a reason the calls cannot show, by label: unused ones, and wildcard ones. */
export interface NamedGrants {
  readonly unexercised: Readonly<Record<string, string>>;
  readonly wildcards: Readonly<Record<string, string>>;
}

export interface GrantReview {
  /** Wildcard grants no entry of `wildcards` names, used or not. */
  readonly unnamedWildcards: Grant[];
  /** Grants no allowed call used, not named in `unexercised`. */
  readonly unused: Grant[];
  /** Grants no allowed call used, named in `unexercised`: kept for its reason. */
  readonly keptUnused: Grant[];
  /** Entries of `unexercised` that name no unused grant: used now, or gone. */
  readonly staleUnexercised: string[];
  /** Entries of `wildcards` that name no wildcard grant: narrowed, or gone. */
  readonly staleWildcards: string[];
}

/**
 * The unused-grant rule. A grant is needed when an allowed call uses it, or when `unexercised` says why
 * it stays unused. A wildcard grant is needed only when `wildcards` says why: any call of the role
 * matches `dynamodb:*` or `table/*`, so a call shows that one action on one resource is needed, never
 * the rest of what the pattern grants.
 */
export const reviewGrants = (grants: readonly Grant[], allowed: readonly Evaluated[], named: NamedGrants): GrantReview => {
  const notUsed = grants.filter((grant) => !allowed.some((call) => call.principal === grant.role && matches(grant.action, call.action) && matches(grant.resource, call.resource)));
  const wildcards = grants.filter(isWildcard);
  return {
    unnamedWildcards: wildcards.filter((grant) => !(grant.label in named.wildcards)),
    unused: notUsed.filter((grant) => !(grant.label in named.unexercised)),
    keptUnused: notUsed.filter((grant) => grant.label in named.unexercised),
    staleUnexercised: Object.keys(named.unexercised).filter((label) => !notUsed.some((grant) => grant.label === label)),
    staleWildcards: Object.keys(named.wildcards).filter((label) => !wildcards.some((grant) => grant.label === label)),
  };
};

/** The roles the check covers: each function's, and the pipes'. */
export const checkedRoles = (model: StackModel): Record<string, string> => ({
  ...Object.fromEntries(functionNames.map((fn) => [fn, model.functions[fn].role])),
  pipes: model.pipeRole,
  'replay-pipe': model.replayPipeRole,
});
