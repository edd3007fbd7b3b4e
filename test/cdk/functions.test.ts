import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { leadSources, requestSources } from '../../shared/sources/registry.ts';
import { callsSource } from '../../shared/calls/source.ts';
import { functionIdPrefix, logicalIdOf, resources, synthesize } from './synth.ts';

const { template } = synthesize();
/** One synth with every function setting given in context, as the CLI passes it (strings). */
const custom = synthesize({
  context: { memorySize: '1024', corsAllowedOrigins: 'https://a.example, https://b.example', configCacheTtlSeconds: '300', logRetentionDays: '90', allowShortLogRetention: 'true' },
}).template;

function fnOf(path: string) {
  const id = logicalIdOf(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp(`POST ${path}$`) });
  return { id, ...resources(template, 'AWS::Lambda::Function')[id]! };
}

/** Every statement of the policies attached to a function's role. */
function statementsOf(path: string): Array<{ Action: string | string[]; Resource: unknown; Effect: string }> {
  const roleId = fnOf(path).Properties!.Role['Fn::GetAtt'][0];
  return Object.values(resources(template, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties!.Roles as Array<{ Ref: string }>).some((r) => r.Ref === roleId))
    .flatMap((p) => p.Properties!.PolicyDocument.Statement);
}

const actions = (a: string | string[]) => [a].flat().sort();
/** The HMAC key of the person lookup items (CONTRACT.md section 12). */
const personKeyId = logicalIdOf(template, 'AWS::SecretsManager::Secret', { Description: Match.stringLikeRegexp('person lookup items') });
const readsPersonKey = { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: { Ref: personKeyId } };

/** The lead functions' resources, by their description (`... POST /api/<endpoint>-lead-create`, `... GET/POST /api/call-lead-webhook/{provider}`). */
const leadFunctionProps = (t: typeof template) =>
  Object.values(resources(t, 'AWS::Lambda::Function'))
    .filter((fn) => / (GET\/)?POST \/api\/\S+$/.test(fn.Properties!.Description))
    .map((fn) => fn.Properties!);

/** The paths whose POST creates leads in the request: every source but the asynchronous ones, in the registry's order. */
const leadPaths = requestSources.map((source) => source.route.path);

describe('The lead functions', () => {
  test('are one per source that makes its lead in the request (the four endpoints, Google Ads lead forms, calls), beside the admin, events enrichment and Meta functions', () => {
    expect(leadFunctionProps(template)).toHaveLength(requestSources.length);
    expect(leadFunctionProps(template).map((fn) => fn.Description)).toEqual(requestSources.map((source) => expect.stringMatching(`POST ${source.route.path}$`)));
    // Each source's function, an asynchronous source's worker, the admin, the events enrichment, the quiet-source watch, the retention sweep, and the portal pulls' two.
    template.resourceCountIs('AWS::Lambda::Function', leadSources.length + leadSources.filter((source) => source.worker).length + 4 + 2);
  });

  test('run Node.js 24 on arm64 with the bundled ESM handler, 512 MB and a 10 s timeout by default', () => {
    for (const fn of leadFunctionProps(template)) {
      expect(fn).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler', MemorySize: 512, Timeout: 10 });
    }
  });

  test('take their memory size from context', () => {
    for (const fn of leadFunctionProps(custom)) expect(fn.MemorySize).toBe(1024);
  });

  test('get the table names and the config cache TTL in their environment, and no --enable-source-maps (it slows every cold start)', () => {
    for (const fn of leadFunctionProps(template)) {
      expect(fn.Environment.Variables).toMatchObject({
        CONFIG_TABLE_NAME: { Ref: 'ConfigTable' },
        LEADS_TABLE_NAME: { Ref: 'LeadsTable' },
        CONFIG_CACHE_TTL_SECONDS: '30',
      });
      expect(fn.Environment.Variables.NODE_OPTIONS).toBeUndefined();
    }
  });

  test('give only the browser-facing website function the allowed CORS origins, * by default', () => {
    expect(fnOf('/api/website-lead-create').Properties!.Environment.Variables.CORS_ALLOWED_ORIGINS).toBe('*');
    for (const path of requestSources.filter((source) => !source.browserFacing).map((source) => source.route.path)) {
      expect(fnOf(path).Properties!.Environment.Variables.CORS_ALLOWED_ORIGINS).toBeUndefined();
    }
  });

  test('take the CORS origins and the config cache TTL from context', () => {
    custom.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('website'),
      Environment: { Variables: Match.objectLike({ CORS_ALLOWED_ORIGINS: 'https://a.example,https://b.example', CONFIG_CACHE_TTL_SECONDS: '300' }) },
    });
  });

  test('each log to their own log group, kept 365 days by default (every log group: the access and pipe logs too), or as long as the context says', () => {
    const logGroups = new Set(leadPaths.map((path) => fnOf(path).Properties!.LoggingConfig.LogGroup.Ref));
    expect(logGroups.size).toBe(leadPaths.length);
    for (const id of logGroups) {
      expect(resources(template, 'AWS::Logs::LogGroup')[id]!.Properties!.RetentionInDays).toBe(365);
    }
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 365 });
    custom.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });

  test('refuse to synthesize logs kept under 365 days unless allowShortLogRetention is set', () => {
    expect(() => synthesize({ context: { logRetentionDays: '90' } })).toThrow('allowShortLogRetention');
  });

  test("give the admin function the audit's retention: 365 days by default, or the context's", () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('admin API'),
      Environment: { Variables: Match.objectLike({ AUDIT_RETENTION_DAYS: '365' }) },
    });
    synthesize({ context: { auditRetentionDays: '731' } }).template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('admin API'),
      Environment: { Variables: Match.objectLike({ AUDIT_RETENTION_DAYS: '731' }) },
    });
    expect(() => synthesize({ context: { auditRetentionDays: '90' } })).toThrow('auditRetentionDays');
  });

  test('use no AWS managed policy', () => {
    template.allResourcesProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
  });

  describe.each(leadPaths)('the function of POST %s', (path) => {
    test('reads the Config table with GetItem and Query only (a source whose deliveries name a connection: and checks its connection items in its writes; one signed by its platform reads no API key: its connection items alone, and its account)', () => {
      const onConfig = statementsOf(path).filter((s) => JSON.stringify(s.Resource).includes('"ConfigTable"'));
      const reads = { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:Query'], Resource: { 'Fn::GetAtt': ['ConfigTable', 'Arn'] } };
      // The guard of each delivery's write (CONTRACT.md sections 10 and 14): a ConditionCheck of its connection's items alone.
      const checks = (prefix: string) => ({
        Effect: 'Allow',
        Action: 'dynamodb:ConditionCheckItem',
        Resource: { 'Fn::GetAtt': ['ConfigTable', 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${prefix}*`] } },
      });
      const source = requestSources.find((candidate) => candidate.route.path === path)!;
      const prefix = source.connection?.shape.partitionPrefix;
      // A delivery signed by its platform names its account through its connection: no API key is read, so the function may read only its connection's items (and query its account).
      const connectionsOnly = [
        { Effect: 'Allow', Action: 'dynamodb:Query', Resource: { 'Fn::GetAtt': ['ConfigTable', 'Arn'] } },
        { ...checks(prefix ?? ''), Action: ['dynamodb:ConditionCheckItem', 'dynamodb:GetItem'] },
      ];
      expect(onConfig).toEqual(!prefix ? [reads] : source.authentication === 'platform-signature' ? connectionsOnly : [reads, checks(prefix)]);
    });

    test("writes the Leads table with PutItem (and, for the sources an API key authenticates, BatchWriteItem: a record or a repeat with its person lookup items), reads back a lead with GetItem, checks and updates only a lead's, its claim's or its key's item (a repeat's claim check and its settling after an erasure), only the website function counts rejection records with UpdateItem, and only the call webhook its keys' requests (no index)", () => {
      const onLeads = statementsOf(path).filter((s) => JSON.stringify(s.Resource).includes('"LeadsTable"'));
      const actions = [
        ...(['api-key', 'scoped-api-key'].includes(requestSources.find((source) => source.route.path === path)!.authentication) ? ['dynamodb:BatchWriteItem'] : []),
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        ...(path === '/api/website-lead-create' ? ['dynamodb:UpdateItem'] : []),
      ];
      expect(onLeads).toEqual([
        { Effect: 'Allow', Action: actions, Resource: { 'Fn::GetAtt': ['LeadsTable', 'Arn'] } },
        {
          Effect: 'Allow',
          Action: ['dynamodb:ConditionCheckItem', 'dynamodb:UpdateItem'],
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LEADS#*', 'IDEMPOTENCY#*'] } },
          Resource: { 'Fn::GetAtt': ['LeadsTable', 'Arn'] },
        },
        ...(path === callsSource.route.path
          ? [
              {
                Effect: 'Allow',
                Action: 'dynamodb:UpdateItem',
                Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['KEYRATE#*'] } },
                Resource: { 'Fn::GetAtt': ['LeadsTable', 'Arn'] },
              },
            ]
          : []),
      ]);
    });

    test('can otherwise only write to its own log group, and read the key of the person lookup items it writes with each lead', () => {
      // The website function's one KMS grant (challenge secrets) is test/cdk/challenge-secrets.test.ts's.
      const rest = statementsOf(path).filter((s) => !/"(ConfigTable|LeadsTable|MetaLeadAdsPageTokenKey\w*)"/.test(JSON.stringify(s.Resource)));
      // A source signed by the Meta app (WhatsApp's) reads the app's secrets too (the Meta construct's own secret, never a copy), in the same statement.
      const signedByTheMetaApp = requestSources.find((source) => source.route.path === path)!.authentication === 'platform-signature';
      const appSecrets = Object.keys(resources(template, 'AWS::SecretsManager::Secret')).filter((id) => id.startsWith('MetaLeadAdsAppSecrets'));
      expect(rest).toEqual([
        { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [fnOf(path).Properties!.LoggingConfig.LogGroup.Ref, 'Arn'] } },
        signedByTheMetaApp ? { ...readsPersonKey, Resource: [...appSecrets.map((id) => ({ Ref: id })), readsPersonKey.Resource] } : readsPersonKey,
      ]);
      if (signedByTheMetaApp) expect(appSecrets).toHaveLength(1);
      expect(fnOf(path).Properties!.Environment.Variables.PERSON_KEY_SECRET_ARN).toEqual({ Ref: personKeyId });
      expect(statementsOf(path).flatMap((s) => actions(s.Action))).not.toContainEqual(expect.stringContaining('*'));
    });
  });
});

/** Every statement of the policies attached to the role of the function with this description. */
function statementsOfFunction(description: RegExp) {
  const id = Object.entries(resources(template, 'AWS::Lambda::Function')).find(([, fn]) => description.test(fn.Properties!.Description))![0];
  const fn = resources(template, 'AWS::Lambda::Function')[id]!;
  const roleId = fn.Properties!.Role['Fn::GetAtt'][0];
  const statements = Object.values(resources(template, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties!.Roles as Array<{ Ref: string }>).some((r) => r.Ref === roleId))
    .flatMap((p) => p.Properties!.PolicyDocument.Statement);
  return { fn, statements };
}

describe('The admin function', () => {
  const { fn, statements } = statementsOfFunction(/admin API/);

  test('knows the two tables, the key of the person lookup items, the KMS key that seals challenge secrets, and how long its audit entries are kept', () => {
    expect(fn.Properties!.Environment.Variables).toEqual({
      // Every look at a person's data is kept on record that long (CONTRACT.md section 18).
      AUDIT_RETENTION_DAYS: '365',
      CONFIG_TABLE_NAME: { Ref: 'ConfigTable' },
      LEADS_TABLE_NAME: { Ref: 'LeadsTable' },
      // A pull asked for through the admin API runs in the pull function, from its fixed address (CONTRACT.md section 17).
      PORTAL_PULL_FUNCTION_NAME: { Ref: expect.stringMatching(/^PortalPullsFunction/) },
      PERSON_KEY_SECRET_ARN: { Ref: personKeyId },
      META_PAGE_TOKEN_KEY_ID: { 'Fn::GetAtt': [expect.stringMatching(/^MetaLeadAdsPageTokenKey/), 'Arn'] },
      // `GET .../sources` judges each channel with the quiet-source watch's settings (CONTRACT.md section 16).
      SILENCE_MIN_LEADS: '10',
      SILENCE_MIN_MINUTES: '360',
      SILENCE_QUIET_HOURS: '22:00-08:00',
    });
  });

  test("on the Leads table, pages the rejection log (the table and its by_reason index), releases quarantined submissions, and finds and erases a person's items, never scanning it", () => {
    const onLeads = statements.filter((s) => JSON.stringify(s.Resource).includes('"LeadsTable"'));
    // The same actions as on the Config table since a released repeat checks its original's claim: one statement for both.
    expect(onLeads).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
        Resource: [{ 'Fn::GetAtt': ['ConfigTable', 'Arn'] }, { 'Fn::GetAtt': ['LeadsTable', 'Arn'] }],
      },
      // The index serves Query alone.
      { Effect: 'Allow', Action: 'dynamodb:Query', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['LeadsTable', 'Arn'] }, '/index/by_reason']] } },
    ]);
    expect(statements).toContainEqual(readsPersonKey);
    expect(JSON.stringify(statements)).not.toMatch(/Scan|\*"/);
  });

  test('reads and writes configuration on the Config table', () => {
    expect(statements.filter((s) => JSON.stringify(s.Resource).includes('"ConfigTable"'))).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
        Resource: [{ 'Fn::GetAtt': ['ConfigTable', 'Arn'] }, { 'Fn::GetAtt': ['LeadsTable', 'Arn'] }],
      },
    ]);
  });
});

describe('The key of the person lookup items', () => {
  test('is generated by the stack, kept when the stack goes, and readable only by the functions that write, find or erase people', () => {
    template.hasResource('AWS::SecretsManager::Secret', {
      Properties: { Description: Match.stringLikeRegexp('person lookup items'), GenerateSecretString: { ExcludePunctuation: true, PasswordLength: 64 } },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    const readers = Object.values(resources(template, 'AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties!.PolicyDocument).includes(`"Ref":"${personKeyId}"`))
      .flatMap((policy) => policy.Properties!.Roles.map((role: { Ref: string }) => role.Ref));
    const roleOf = (description: RegExp) => statementsOfFunction(description).fn.Properties!.Role['Fn::GetAtt'][0];
    // Whatever makes a lead: each request source's function (by its construct path), each worker, the portal pull and the admin function;
    // and the retention sweep, which erases leads as the admin function does.
    const roleAt = (functionPath: readonly string[]) =>
      Object.entries(resources(template, 'AWS::Lambda::Function')).find(([id]) => id.startsWith(functionIdPrefix(functionPath)))![1].Properties!.Role['Fn::GetAtt'][0];
    const leadMakers = leadSources.map((source) => (source.worker ? source.worker.functionPath : source.stack.functionPath));
    expect(readers.sort()).toEqual([...leadMakers.map(roleAt), roleOf(/portal pulls, each queued/), roleOf(/admin API/), roleOf(/retention sweep/)].sort());
  });
});

describe('The Lead Created enrichment function', () => {
  const { fn, statements } = statementsOfFunction(/Lead Created events/);

  test("reshapes stream records, reading only a removed lead's erasure reason: GetItem of ERASED# items, the table's name its one setting", () => {
    expect(fn.Properties!.Environment).toEqual({ Variables: { LEADS_TABLE_NAME: { Ref: 'LeadsTable' } } });
    expect(statements.map((s) => s.Action)).toEqual([['logs:CreateLogStream', 'logs:PutLogEvents'], 'dynamodb:GetItem']);
    expect(statements[1]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ERASED#*'] } });
  });
});
