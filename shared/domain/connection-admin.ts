/**
 * The one connection lifecycle (issue 33): connect, move, list, remove, rotate a key and seed, for every
 * kind of connection a source declares (shared/sources/connection-kind.ts: Google's forms, call numbers,
 * the next sources' numbers), over the one connection store (ConnectionRegistry). Where kinds differ
 * (an id's rule, a key or none, one account per id or each account its own, how a lost race ends) the
 * declaration says so; nothing here branches on a kind's name. The admin CLI, the seed and the admin API
 * are thin clients of the operations here, and answer in the declaration's words.
 */
import { randomBytes } from 'node:crypto';
import type { ConnectionLifecycleDeclaration, RefusalWords } from '../sources/connection-kind.ts';
import { hashApiKey } from './api-keys.ts';
import { accountIdProblem, campaignIdProblem, fieldProblems, projectIdProblem, reportUnknownFields } from './account-admin.ts';
import { AccountNotFoundError, InvalidKeyOptionError, KeyAccountNotFoundError, KeyAdminError, LeadIntakeError, ServiceUnavailableError, UnknownCampaignError, UnknownProjectError } from './errors.ts';
import { connectionIdOf } from './connection-ids.ts';
import type { AccountReader } from './ports/keys-and-accounts.ts';
import type { Connection, ConnectionKind, ConnectionRegistry } from './ports/connections.ts';

/** Fills a declared template's `{name}`s (the declaration's words); an unknown name stays as written (`{base_url}`). */
export const filled = (template: string, values: Readonly<Record<string, string | number>>): string =>
  template.replace(/\{(\w+)\}/g, (whole, name: string) => (values[name] !== undefined ? String(values[name]) : whole));

const show = (value: unknown) => JSON.stringify(value);

export { connectionIdOf } from './connection-ids.ts';

// ---- Keys ---------------------------------------------------------------------------------------

/** A connection's key as stored: the SHA-256 hex of API keys (shared/domain/api-keys.ts). */
export const hashConnectionKey = hashApiKey;

const newKey = (kind: ConnectionLifecycleDeclaration): string => {
  if (!kind.key) throw new TypeError(`${kind.kind} connections carry no key`);
  return `${kind.key.prefix}${randomBytes(kind.key.randomBytes).toString('base64url')}`;
};

// ---- The lifecycle's refusals (KeyAdminErrors: the CLI's exit 2 and 1; the admin API maps them below) ----

/** An id that is not one of the kind's (the declaration's words): exit 2. */
export class InvalidConnectionIdError extends InvalidKeyOptionError {
  constructor(kind: ConnectionLifecycleDeclaration, text: string) {
    super(kind.words.messages.invalidIdFlag, filled(kind.words.messages.invalidId, { value: show(text) }));
  }
}

/** No connection of that id is connected (to that account): exit 1. */
export class ConnectionNotFoundError extends KeyAdminError {
  constructor(kind: ConnectionLifecycleDeclaration, id: string) {
    super(filled(kind.words.messages.notConnected, { id }));
  }
}

/** The id is connected to another account, and the kind's ids are one account's: exit 1. */
export class ConnectionOfAnotherAccountError extends KeyAdminError {
  constructor(kind: ConnectionLifecycleDeclaration, id: string) {
    super(filled(kind.words.messages.ofAnotherAccount ?? kind.words.messages.notConnected, { id }));
  }
}

/** The project or campaign to connect to is not an active one of the account: exit 1. */
export class ConnectionTargetNotFoundError extends KeyAdminError {
  readonly target: 'project' | 'campaign';
  constructor(kind: ConnectionLifecycleDeclaration, target: 'project' | 'campaign', id: string, accountId: string) {
    const words = kind.words.messages;
    super(filled(target === 'project' ? words.projectNotFound : words.campaignNotFound, { value: show(id), account: show(accountId) }));
    this.target = target;
  }
}

/** An admin API answer in the declaration's words: its 404 (not connected) or 409 (another account's). */
export class ConnectionRefusal extends LeadIntakeError {
  readonly status: number;
  readonly reason: string;
  constructor(words: RefusalWords) {
    super(words.message);
    this.status = words.status;
    this.reason = words.code;
  }
}

// ---- The lifecycle ----------------------------------------------------------------------------------------

export interface ConnectionAdminDependencies {
  /** The connection store of the kind (DynamoDbConnectionStore with its declaration). */
  readonly connections: ConnectionRegistry;
  readonly accounts: AccountReader;
  readonly now?: () => Date;
}

export interface ConnectInput {
  readonly accountId: string;
  /** As typed: the kind's rule reads it (a number's last 10 digits). */
  readonly id: string;
  readonly projectId: string;
  readonly campaignId: string;
}

/**
 * A connection as the CLI and the admin API show it, its id under the kind's member (`form_id`, `number`):
 * `issued` (account, project, campaign, and a key only when one was made, shown this once) or `listed`
 * (project, campaign, connected at). Never a key's hash.
 */
export type ConnectionJson = Readonly<Record<string, string>>;

export interface ConnectOutcome {
  /** True when it was not connected before (a keyed kind's new key is in `connection`); false when it moved. */
  readonly created: boolean;
  readonly connection: ConnectionJson;
}

type Shown = Pick<Connection, 'id' | 'accountId' | 'projectId' | 'campaignId' | 'connectedAt'>;

const issued = (kind: ConnectionLifecycleDeclaration, connection: Shown, key?: string): ConnectionJson => ({
  [kind.words.idMember]: connection.id,
  account_id: connection.accountId,
  project_id: connection.projectId,
  campaign_id: connection.campaignId,
  ...(key !== undefined && { key }),
});

const listed = (kind: ConnectionLifecycleDeclaration, connection: Shown): ConnectionJson => ({
  [kind.words.idMember]: connection.id,
  project_id: connection.projectId,
  campaign_id: connection.campaignId,
  connected_at: connection.connectedAt,
});

const connectAnswer = (kind: ConnectionLifecycleDeclaration, connection: Shown, key?: string) =>
  kind.connectAnswer === 'issued' ? issued(kind, connection, key) : listed(kind, connection);

const clock = (deps: ConnectionAdminDependencies) => (deps.now ?? (() => new Date()))();

const checkedId = (kind: ConnectionLifecycleDeclaration, text: string): string => {
  const id = connectionIdOf(kind, text);
  if (id === undefined) throw new InvalidConnectionIdError(kind, text);
  return id;
};

/** The account exists and has the project active, with the campaign active under it. */
const checkTarget = async (kind: ConnectionLifecycleDeclaration, deps: ConnectionAdminDependencies, { accountId, projectId, campaignId }: Omit<ConnectInput, 'id'>): Promise<void> => {
  const account = await deps.accounts.loadAccount(accountId);
  if (!account) throw new KeyAccountNotFoundError(accountId);
  if (!account.projects.has(projectId)) throw new ConnectionTargetNotFoundError(kind, 'project', projectId, accountId);
  if (account.campaigns.get(campaignId)?.projectId !== projectId) throw new ConnectionTargetNotFoundError(kind, 'campaign', campaignId, accountId);
};

/** Seconds an operator waits before trying again a connect that lost every attempt to other writers. */
const CONNECT_RETRY_AFTER_SECONDS = 1;

/** What a connect, or a seed, that lost every attempt answers (the declaration's `connect.exhausted`). */
const exhausted = (kind: ConnectionLifecycleDeclaration, id: string): Error =>
  kind.connect.exhausted === 'another-account' ? new ConnectionOfAnotherAccountError(kind, id) : new ServiceUnavailableError(CONNECT_RETRY_AFTER_SECONDS);

/** Whether the kind's ids are one account's (platform-wide): then another account's connection refuses a connect. */
const oneAccountPerId = (kind: ConnectionLifecycleDeclaration) => kind.shape.scope === 'platform';

/**
 * Connects an id to an account's project and campaign (a keyed kind's new key shown once). Connecting
 * again moves it, keeping its key and when it was connected; a removed one is connected anew; another
 * account's, where an id is one account's, is refused. Each write is conditioned on what was read, so a
 * connect or a removal landing in between is read again, never overwritten.
 */
export const connectConnection = async (kind: ConnectionLifecycleDeclaration, deps: ConnectionAdminDependencies, input: ConnectInput): Promise<ConnectOutcome> => {
  const target = { ...input, id: checkedId(kind, input.id) };
  await checkTarget(kind, deps, target);
  for (let attempt = 0; attempt < kind.connect.attempts; attempt++) {
    const stored = await deps.connections.findConnection(target.id, target.accountId);
    if (stored && stored.accountId !== target.accountId) throw new ConnectionOfAnotherAccountError(kind, target.id);
    if (stored) {
      if (await deps.connections.reconnect(stored, target.projectId, target.campaignId)) {
        return { created: false, connection: connectAnswer(kind, { ...target, connectedAt: stored.connectedAt }) };
      }
      continue;
    }
    const key = kind.key ? newKey(kind) : undefined;
    const connection: Connection = {
      kind: kind.kind as ConnectionKind,
      id: target.id,
      accountId: target.accountId,
      projectId: target.projectId,
      campaignId: target.campaignId,
      ...(key !== undefined && { keyHash: hashConnectionKey(key) }),
      connectedAt: clock(deps).toISOString(),
    };
    if (await deps.connections.insertConnection(connection)) return { created: true, connection: connectAnswer(kind, connection, key) };
  }
  throw exhausted(kind, target.id);
};

/** A keyed kind's new key, shown once; the old key answers 401 from now on. `accountId`: only that account's. */
export const rotateConnectionKey = async (kind: ConnectionLifecycleDeclaration, deps: ConnectionAdminDependencies, text: string, accountId?: string): Promise<ConnectionJson> => {
  const id = checkedId(kind, text);
  const key = newKey(kind);
  const connection = await deps.connections.replaceKey(id, hashConnectionKey(key), accountId);
  if (!connection) throw new ConnectionNotFoundError(kind, id);
  return issued(kind, connection, key);
};

/** Disconnects: its deliveries are refused from now on, and a seed never connects it again. `accountId`: only that account's. */
export const removeConnection = async (kind: ConnectionLifecycleDeclaration, deps: ConnectionAdminDependencies, text: string, accountId?: string): Promise<string> => {
  const id = checkedId(kind, text);
  if (!(await deps.connections.removeConnection(id, accountId))) throw new ConnectionNotFoundError(kind, id);
  return id;
};

/** The connections of an existing account, by id. */
export const listConnections = async (kind: ConnectionLifecycleDeclaration, deps: ConnectionAdminDependencies, accountId: string): Promise<ConnectionJson[]> => {
  if (!(await deps.accounts.loadAccount(accountId))) throw new KeyAccountNotFoundError(accountId);
  return (await deps.connections.listConnections(accountId)).map((connection) => listed(kind, connection));
};

/** What a seed did to a connection, in the lifecycle's words. */
const seedOutcomes = { added: 'created', reconnected: 'changed', kept_removed: 'removed' } as const;

/**
 * A seed file's connection (with its key, plain text in a local seed only, for a keyed kind), applied at
 * every `npm start`: added when never connected, moved to the seed's project and campaign when connected
 * (a rotated key stands), never brought back once removed (CONTRACT.md section 14).
 */
export const seedConnection = async (
  kind: ConnectionLifecycleDeclaration,
  deps: ConnectionAdminDependencies,
  input: ConnectInput & { readonly key?: string },
): Promise<'created' | 'changed' | 'removed'> => {
  const target = { ...input, id: checkedId(kind, input.id) };
  await checkTarget(kind, deps, target);
  const outcome = await deps.connections.seed({
    kind: kind.kind as ConnectionKind,
    id: target.id,
    accountId: target.accountId,
    projectId: target.projectId,
    campaignId: target.campaignId,
    ...(input.key !== undefined && { keyHash: hashConnectionKey(input.key) }),
    connectedAt: clock(deps).toISOString(),
  });
  // Where each account's ids are its own, no other account has it: only writers racing it through every attempt end so.
  if (outcome === 'connected_to_another_account') throw oneAccountPerId(kind) ? new ConnectionOfAnotherAccountError(kind, target.id) : exhausted(kind, target.id);
  return seedOutcomes[outcome];
};

// ---- The admin API (CONTRACT.md section 9) -----------------------------------------------------------------

type Body = Readonly<Record<string, unknown>>;

/** An account's connections of one kind as the admin API manages them: the lifecycle above, its refusals as the API's answers. */
export class AccountConnections {
  readonly #kind: ConnectionLifecycleDeclaration;
  readonly #deps: ConnectionAdminDependencies;

  constructor(kind: ConnectionLifecycleDeclaration, deps: ConnectionAdminDependencies) {
    this.#kind = kind;
    this.#deps = deps;
  }

  /** `PUT /accounts/{accountId}/<kind>/{id}` `{"projectId", "campaignId"}`: 201 when new (with a keyed kind's key), 200 when moved. */
  async connect(accountId: string, id: string, body: Body): Promise<ConnectOutcome> {
    const problems = fieldProblems();
    reportUnknownFields(body, ['projectId', 'campaignId'], problems.report);
    const accountProblem = accountIdProblem(accountId);
    if (accountProblem) problems.report('accountId', accountProblem);
    if (connectionIdOf(this.#kind, id) === undefined) problems.report(this.#kind.words.pathParameter, this.#kind.words.invalidIdProblem);
    const projectProblem = projectIdProblem(body.projectId);
    if (projectProblem) problems.report('projectId', projectProblem);
    const campaignProblem = campaignIdProblem(body.campaignId);
    if (campaignProblem) problems.report('campaignId', campaignProblem);
    problems.check();
    return this.#answered(() => connectConnection(this.#kind, this.#deps, { accountId, id, projectId: body.projectId as string, campaignId: body.campaignId as string }));
  }

  /** `GET /accounts/{accountId}/<kind>`: never a key or a hash. */
  async list(accountId: string): Promise<ConnectionJson[]> {
    return this.#answered(() => listConnections(this.#kind, this.#deps, accountId));
  }

  /** `DELETE /accounts/{accountId}/<kind>/{id}`: disconnected; another account's is not found. */
  async remove(accountId: string, id: string): Promise<void> {
    await this.#existing(accountId, id);
    await this.#answered(() => removeConnection(this.#kind, this.#deps, id, accountId));
  }

  /** `POST /accounts/{accountId}/<kind>/{id}/rotate-key`: a new key, shown this once; another account's is not found. */
  async rotate(accountId: string, id: string): Promise<ConnectionJson> {
    await this.#existing(accountId, id);
    return this.#answered(() => rotateConnectionKey(this.#kind, this.#deps, id, accountId));
  }

  async #existing(accountId: string, id: string): Promise<void> {
    if (!(await this.#deps.accounts.loadAccount(accountId))) throw new AccountNotFoundError();
    if (connectionIdOf(this.#kind, id) === undefined) throw new ConnectionRefusal(this.#kind.words.notFound);
  }

  /** The lifecycle's refusals as the admin API answers them; another account's connection is "not found" except on PUT. */
  async #answered<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof KeyAccountNotFoundError) throw new AccountNotFoundError();
      if (error instanceof ConnectionNotFoundError) throw new ConnectionRefusal(this.#kind.words.notFound);
      if (error instanceof ConnectionOfAnotherAccountError) throw new ConnectionRefusal(this.#kind.words.conflict ?? this.#kind.words.notFound);
      if (error instanceof ConnectionTargetNotFoundError) throw error.target === 'project' ? new UnknownProjectError() : new UnknownCampaignError();
      throw error;
    }
  }
}
