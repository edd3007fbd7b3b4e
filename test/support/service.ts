/**
 * A complete service for one test file: its own tables on the run's DynamoDB Local, a repository,
 * the four handlers, captured log lines, and a counter of DynamoDB round trips (an SDK middleware).
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { hashApiKey } from '../../shared/domain/account-directory.ts';
import { createKey, type CreateKeyInput, type KeyAdminDependencies } from '../../shared/domain/api-keys.ts';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoDbClient } from '../../shared/dynamodb/client.ts';
import { createTables } from '../../shared/dynamodb/create-tables.ts';
import { DynamoDbRepository, type TransactionRetryPolicy } from '../../shared/dynamodb/repository.ts';
import { portalAEndpoint, portalBEndpoint, socialEndpoint, websiteEndpoint } from '../../shared/endpoints.ts';
import type { LeadEndpoint } from '../../shared/http/lead-handler.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../../shared/http/lambda.ts';
import { leadHandler } from '../../shared/http/lead-handler.ts';
import { type EndpointName } from '../../shared/routes.ts';
import { leadRoutes, sourceKeyScopes } from '../../shared/sources/registry.ts';
import { leadRuntime } from '../../shared/runtime.ts';
import type { ChallengeDependencies } from '../../shared/http/middleware/captcha-challenge.ts';
import { challengeSecretScope } from '../../shared/captcha/secrets.ts';
import { localCipherFromEnvironment } from '../../shared/meta/token-cipher.ts';
import { asFunction, recordAwsCalls } from './aws-calls.ts';

export const endpoints: Record<EndpointName, LeadEndpoint> = {
  website: websiteEndpoint,
  portala: portalAEndpoint,
  portalb: portalBEndpoint,
  social: socialEndpoint,
};
export const endpointNames = Object.keys(endpoints) as EndpointName[];

export interface AccountSeed {
  readonly id: string;
  readonly duplicateSetting?: DuplicateSetting;
  /** Project id to its campaign ids. */
  readonly projects?: Record<string, string[]>;
  readonly website?: string[];
  readonly social?: string[];
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
}

export interface ServiceOptions {
  readonly configCacheTtlSeconds?: number;
  readonly corsAllowedOrigins?: string[];
  readonly retry?: TransactionRetryPolicy;
  /** Runs on the SDK client before the handlers are built: fault injection. */
  readonly instrument?: (client: DynamoDBClient) => void;
  /** The database to talk to (a fault relay in front of the run's DynamoDB Local); default the run's. */
  readonly endpoint?: string;
  /** The function timeout each call's Lambda context gives the handler (default the stack's). */
  readonly functionTimeoutMs?: number;
  /** Challenges for browser keys (a fake siteverify); default the environment's. */
  readonly challenges?: ChallengeDependencies;
  /** A browser key's rejection records stored per minute (setting rejectionRecordsPerMinute); default 60. */
  readonly rejectionRecordsPerMinute?: number;
  /** A calls key's deliveries per minute (setting callRequestsPerKeyPerMinute); default 300. */
  readonly callRequestsPerKeyPerMinute?: number;
}

const ATTRIBUTE_VALUE_TAGS = new Set(['S', 'N', 'B', 'SS', 'NS', 'BS', 'M', 'L', 'NULL', 'BOOL']);
const isWireMap = (map: unknown): map is Record<string, any> =>
  typeof map === 'object' &&
  map !== null &&
  Object.values(map).every((value) => typeof value === 'object' && value !== null && Object.keys(value).length === 1 && ATTRIBUTE_VALUE_TAGS.has(Object.keys(value)[0]!));

/**
 * A command's input as the repository wrote its items: the lead path sends its transaction as a
 * low-level TransactWriteItemsCommand, already in DynamoDB's wire shape (shared/dynamodb/transactions.ts),
 * where the document client's commands are still unmarshalled at this step.
 */
const documentShaped = (input: any): any => {
  if (!Array.isArray(input?.TransactItems)) return input;
  return {
    ...input,
    TransactItems: input.TransactItems.map((item: Record<string, Record<string, unknown>>) =>
      Object.fromEntries(
        Object.entries(item).map(([kind, operation]) => [
          kind,
          Object.fromEntries(Object.entries(operation).map(([name, value]) => [name, ['Item', 'Key', 'ExpressionAttributeValues'].includes(name) && isWireMap(value) ? unmarshall(value as never) : value])),
        ]),
      ),
    ),
  };
};

export const testService = async (options: ServiceOptions = {}) => {
  const endpoint = options.endpoint ?? process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run the tests with npm test');
  const client = createDynamoDbClient({ endpoint });
  const calls: string[] = [];
  const inputs: { command: string; input: any }[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(String(context.commandName));
      inputs.push({ command: String(context.commandName), input: documentShaped(args.input) });
      return next(args);
    },
    { step: 'initialize', name: 'countRoundTrips' },
  );
  recordAwsCalls(client);
  options.instrument?.(client);
  const tables = await createTables(client, `t${randomUUID().slice(0, 8)}_`);
  const repository = new DynamoDbRepository(
    createDocumentClient({ client }),
    tables,
    options.retry,
    options.rejectionRecordsPerMinute === undefined ? undefined : { recordsPerMinute: options.rejectionRecordsPerMinute },
  );
  const logs: Record<string, unknown>[] = [];
  const runtime = leadRuntime({
    stores: repository,
    configCacheTtlSeconds: options.configCacheTtlSeconds ?? 30,
    corsAllowedOrigins: options.corsAllowedOrigins ?? ['*'],
    log: (line) => logs.push({ ...line }),
    ...(options.challenges && { challenges: options.challenges }),
  });
  const handlers = Object.fromEntries(endpointNames.map((name) => [name, leadHandler(endpoints[name], runtime)])) as Record<
    EndpointName,
    ReturnType<typeof leadHandler>
  >;

  const seedAccount = async ({ id, duplicateSetting = 'ignore', projects = {}, website = [], social = [] }: AccountSeed) => {
    await new AccountAdmin(repository.accounts).configure({
      id,
      name: `Account ${id}`,
      duplicateSetting,
      projects: new Map(Object.keys(projects).map((projectId) => [projectId, { id: projectId, name: `Project ${projectId}` }])),
      campaigns: new Map(
        Object.entries(projects).flatMap(([projectId, campaignIds]) =>
          campaignIds.map((campaignId) => [campaignId, { id: campaignId, projectId, name: `Campaign ${campaignId}` }] as const),
        ),
      ),
      websiteSubSources: new Set(website),
      socialSubSources: new Set(social),
    });
  };

  const issueKey = async (accountId: string, { active = true }: { active?: boolean } = {}) => {
    const key = `key-${randomUUID()}`;
    await repository.keys.saveApiKey(hashApiKey(key), { accountId, active });
    return key;
  };

  /** The key lifecycle on this service's stores, optionally at another time (`now`). */
  const keyAdmin = (now?: () => Date): KeyAdminDependencies => ({
    keys: repository.keys,
    accounts: repository.accounts,
    challengeSecrets: localCipherFromEnvironment({}, challengeSecretScope),
    keyScopes: sourceKeyScopes,
    ...(now && { now }),
  });

  /** A key with options, made as `admin create-key` makes it; returns the key and its key id. */
  const issueScopedKey = async (input: CreateKeyInput, now?: () => Date) => {
    const issued = await createKey(keyAdmin(now), input);
    return { key: issued.key, keyId: issued.key_id };
  };

  /** Calls an endpoint's handler as API Gateway would. */
  const call = async (
    name: EndpointName,
    request: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string | undefined>; apiKey?: string; method?: string },
  ): Promise<Answer> => {
    const route = leadRoutes.find((r) => r.endpoint === name)!;
    const headers = { 'content-type': 'application/json', ...(request.apiKey !== undefined && { 'x-api-key': request.apiKey }), ...request.headers };
    const body = request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
    const event = apiGatewayEvent({ method: request.method ?? 'POST', path: route.path, headers, ...(body !== undefined && { body }) });
    const response = (await asFunction(name, () => handlers[name](event, lambdaContext(name, options.functionTimeoutMs) as LeadContext))) as LeadResponse;
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined };
  };

  const roundTrips = {
    reset: () => void ((calls.length = 0), (inputs.length = 0)),
    count: () => calls.length,
    commands: () => [...calls],
    /** Each request's input as the SDK sent it (marshalled), in order. */
    inputs: () => [...inputs],
  };

  return { client, tables, repository, runtime, handlers, logs, seedAccount, issueKey, keyAdmin, issueScopedKey, call, roundTrips };
};

export type TestService = Awaited<ReturnType<typeof testService>>;

let sequence = 0;
/** A fresh valid Indian mobile number for each call. */
export const uniqueMobile = (): string => `9${String(Date.now() % 1e5).padStart(5, '0')}${String(sequence++ % 10_000).padStart(4, '0')}`;

/** A valid body for an endpoint, with overrides. */
export const validBody = (name: EndpointName, project: { projectID: string; campaignID: string }, overrides: Record<string, unknown> = {}) => {
  const common = { name: 'Asha Verma', mobile_number: uniqueMobile(), ...project };
  const own: Record<EndpointName, Record<string, unknown>> = {
    website: { sub_source: 'Skyline landing page' },
    portala: { notes: 'Looking for a 2 BHK' },
    portalb: { notes: 'Wants a site visit' },
    social: { platform: 'fb' },
  };
  return { ...common, ...own[name], ...overrides };
};

export { untilAnswered } from './sender.ts';

/** Every item of a test service's two tables, as stored (consistent scans, page by page): what a test searches for a person's traces. */
export const everyStoredItem = async (service: Pick<TestService, 'client' | 'tables'>): Promise<Record<string, unknown>[]> => {
  const db = createDocumentClient({ client: service.client });
  const items: Record<string, unknown>[] = [];
  for (const table of [service.tables.config, service.tables.leads]) {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey }));
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
  return items;
};
