/**
 * The bench's service: the same pieces the tests and the Lambda functions use (repository, runtime,
 * handler chain), on tables of their own on a DynamoDB endpoint, with an SDK middleware that counts
 * round trips and can capture the next request's wire input (the floor replays it).
 */
import { AccountAdmin } from '../shared/domain/account-admin.ts';
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { hashApiKey } from '../shared/domain/account-directory.ts';
import type { DuplicateSetting } from '../shared/domain/lead.ts';
import { createDocumentClient, createDynamoDbClient } from '../shared/dynamodb/client.ts';
import { createTables } from '../shared/dynamodb/create-tables.ts';
import { DynamoDbRepository, type TableNames } from '../shared/dynamodb/repository.ts';
import { portalAEndpoint, portalBEndpoint, socialEndpoint, websiteEndpoint } from '../shared/endpoints.ts';
import type { LeadEndpoint } from '../shared/http/lead-handler.ts';
import { apiGatewayEvent, lambdaContext } from '../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadResponse } from '../shared/http/lambda.ts';
import { leadHandler, type LeadRuntime } from '../shared/http/lead-handler.ts';
import { type EndpointName } from '../shared/routes.ts';
import { leadRoutes } from '../shared/sources/registry.ts';
import { leadRuntime } from '../shared/runtime.ts';

export const endpoints: Record<EndpointName, LeadEndpoint> = {
  website: websiteEndpoint,
  portala: portalAEndpoint,
  portalb: portalBEndpoint,
  social: socialEndpoint,
};

export const pathOf = (name: EndpointName): string => leadRoutes.find((route) => route.endpoint === name)!.path;

/** A handler's log line is built (JSON) as in Lambda, but not written: the bench's terminal stays readable. */
export const quietLog: LeadRuntime['log'] = (line) => void JSON.stringify(line);

export interface AccountPlan {
  readonly id: string;
  readonly duplicateSetting?: DuplicateSetting;
  /** Project id to its campaign ids. */
  readonly projects: Readonly<Record<string, readonly string[]>>;
}

export const WEBSITE_SUB_SOURCE = 'Bench landing page';

/** Records the commands a client sends (initialize step: once per request, whatever the retries). */
export const countRoundTrips = (client: DynamoDBClient) => {
  const calls: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'benchCountRoundTrips' },
  );
  return { reset: () => void (calls.length = 0), count: () => calls.length, commands: () => [...calls] };
};

/**
 * Captures the marshalled input of the next request of a command (after the document client has
 * turned it into DynamoDB's wire shape); with `skip`, answers it with an empty success unsent.
 */
export const captureRequests = (client: DynamoDBClient, { skip = false }: { skip?: boolean } = {}) => {
  let wanted: string | undefined;
  let captured: unknown;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (wanted !== undefined && String(context.commandName) === wanted) {
        captured = structuredClone(args.input);
        if (skip) return { output: { $metadata: {} } as never, response: {} };
        wanted = undefined;
      }
      return next(args);
    },
    { step: 'build', name: 'benchCaptureRequests' },
  );
  return {
    arm: (commandName: string) => {
      wanted = commandName;
      captured = undefined;
    },
    take: <T>(): T => {
      const value = captured as T;
      captured = undefined;
      return value;
    },
  };
};

export interface BenchService {
  readonly endpoint: string;
  readonly client: DynamoDBClient;
  readonly tables: TableNames;
  readonly repository: DynamoDbRepository;
  readonly roundTrips: ReturnType<typeof countRoundTrips>;
  readonly capture: ReturnType<typeof captureRequests>;
  /** Writes an account (with a campaign per project) and an active key; returns the key. */
  seedAccount(plan: AccountPlan): Promise<string>;
  /** A fresh runtime: what a new container has (an empty configuration cache). */
  newRuntime(options?: { configCacheTtlSeconds?: number }): LeadRuntime;
  handler(name: EndpointName, runtime: LeadRuntime): ReturnType<typeof leadHandler>;
}

export const benchService = async (endpoint: string, prefix = `b${randomUUID().slice(0, 8)}_`): Promise<BenchService> => {
  const client = createDynamoDbClient({ endpoint });
  const roundTrips = countRoundTrips(client);
  const capture = captureRequests(client);
  const tables = await createTables(client, prefix);
  const repository = new DynamoDbRepository(createDocumentClient({ client }), tables);

  const seedAccount = async ({ id, duplicateSetting = 'ignore', projects }: AccountPlan) => {
    await new AccountAdmin(repository.accounts).configure({
      id,
      name: `Bench ${id}`,
      duplicateSetting,
      projects: new Map(Object.keys(projects).map((projectId) => [projectId, { id: projectId, name: `Project ${projectId}` }])),
      campaigns: new Map(
        Object.entries(projects).flatMap(([projectId, campaignIds]) =>
          campaignIds.map((campaignId) => [campaignId, { id: campaignId, projectId, name: `Campaign ${campaignId}` }] as const),
        ),
      ),
      websiteSubSources: new Set([WEBSITE_SUB_SOURCE]),
      socialSubSources: new Set(['fb', 'ig', 'wp']),
    });
    const key = `bench-${randomUUID()}`;
    await repository.keys.saveApiKey(hashApiKey(key), { accountId: id, active: true });
    return key;
  };

  return {
    endpoint,
    client,
    tables,
    repository,
    roundTrips,
    capture,
    seedAccount,
    newRuntime: ({ configCacheTtlSeconds = 30 } = {}) =>
      leadRuntime({ stores: repository, configCacheTtlSeconds, corsAllowedOrigins: ['*'], log: quietLog }),
    handler: (name, runtime) => leadHandler(endpoints[name], runtime),
  };
};

let mobileSequence = 0;
/** Where this process's mobile numbers start: each load process (bench/load.ts) gets a range of its own. */
export const startMobilesAt = (first: number): void => void (mobileSequence = first);
/** A fresh valid mobile number per call ("9" and nine digits); preloaded leads use "8...". */
export const nextMobile = (): string => `9${String(mobileSequence++ % 1e9).padStart(9, '0')}`;

/** A valid body for an endpoint: the fields a real sender posts. */
export const leadBody = (name: EndpointName, projectID: string, campaignID: string, mobile = nextMobile()) => {
  const own: Record<EndpointName, Record<string, string>> = {
    website: { sub_source: WEBSITE_SUB_SOURCE, utm_source: 'google', utm_campaign: 'launch' },
    portala: { notes: 'Looking for a 2 BHK' },
    portalb: { notes: 'Wants a site visit' },
    social: { platform: 'fb' },
  };
  return { name: 'Asha Verma', mobile_number: mobile, email: 'asha@example.com', projectID, campaignID, ...own[name] };
};

/**
 * The new lead of sections 2 and 3 (issue 36): a mobile number and no e-mail, so the contract needs
 * three items for it (the mobile's claim, the lead, the mobile's person lookup) and the service writes
 * exactly those; the floor is that transaction (bench/floor.ts).
 */
export const floorLeadBody = (projectID: string, campaignID: string, mobile = nextMobile()) => {
  const { email: _email, ...body } = leadBody('website', projectID, campaignID, mobile);
  return body;
};

export interface Answer {
  readonly status: number;
  readonly body: any;
}

/** Calls a handler in-process as API Gateway would. */
export const invoke = async (handler: ReturnType<typeof leadHandler>, name: EndpointName, apiKey: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
  const event = apiGatewayEvent({
    path: pathOf(name),
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
    body: JSON.stringify(body),
  });
  const response = (await handler(event, lambdaContext(`lead-intake-${name}`) as LeadContext)) as LeadResponse;
  return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined };
};
