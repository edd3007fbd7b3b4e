/**
 * The numbers an account connects to its projects (CONTRACT.md section 13): a call to a connected
 * number becomes a lead of that number's project and campaign. A number is its last 10 digits
 * (`+91 80 4718 1234`, `080-4718-1234` and `8047181234` are one number), connected per account. The
 * admin CLI, the seed and the admin API are thin clients of the operations here; the webhook reads
 * connections through the intake's ConnectionDirectory.
 *
 * Numbers are connections of the one connection store (shared/domain/ports.ts ConnectionRegistry),
 * of the kind each account connects on its own (`call_number`): two accounts may list one number, and
 * neither blocks the other. A removed number is remembered as removed, so applying a seed again never
 * connects it back (CONTRACT.md section 14); connecting it again by hand does.
 */
import { accountIdProblem, campaignIdProblem, fieldProblems, projectIdProblem, reportUnknownFields } from '../domain/account-admin.ts';
import { AccountNotFoundError, KeyAccountNotFoundError, ServiceUnavailableError, UnknownCampaignError, UnknownProjectError } from '../domain/errors.ts';
import { toAsciiDigits } from '../domain/mobile.ts';
import type { AccountReader, Connection, ConnectionRegistry } from '../domain/ports.ts';
import { CallNumberNotFoundError, CallNumberTargetNotFoundError, InvalidCallNumberError, UnknownCallNumberError } from './errors.ts';

/** The kind of connection a call number is in the connection store. */
export const CALL_NUMBER_CONNECTION = 'call_number' as const;

/** A number connected to a project and campaign of an account. */
export interface CallNumberConnection {
  readonly accountId: string;
  /** The number's last 10 digits. */
  readonly number: string;
  readonly projectId: string;
  readonly campaignId: string;
  readonly connectedAt: string;
}

const callNumberConnectionOf = (connection: Omit<Connection, 'keyHash'>): CallNumberConnection => ({
  accountId: connection.accountId,
  number: connection.id,
  projectId: connection.projectId,
  campaignId: connection.campaignId,
  connectedAt: connection.connectedAt,
});

const connectionOfNumber = (connection: CallNumberConnection): Connection => ({
  kind: CALL_NUMBER_CONNECTION,
  id: connection.number,
  accountId: connection.accountId,
  projectId: connection.projectId,
  campaignId: connection.campaignId,
  connectedAt: connection.connectedAt,
});

/** A number's last 10 digits (any Unicode digits read as ASCII, everything else dropped); undefined with fewer than 10. */
export const callNumberOf = (text: string): string | undefined => {
  const digits = toAsciiDigits(text).replace(/\D/g, '');
  return digits.length >= 10 ? digits.slice(-10) : undefined;
};

const checkedNumber = (text: string): string => {
  const number = callNumberOf(text);
  if (number === undefined) throw new InvalidCallNumberError(text);
  return number;
};

// ---- The number lifecycle (admin CLI, seed, admin API) ----------------------------------------------

export interface CallNumberAdminDependencies {
  /** The connection store's registry of kind `call_number`. */
  readonly numbers: ConnectionRegistry;
  readonly accounts: AccountReader;
  readonly now?: () => Date;
}

export interface ConnectCallNumberInput {
  readonly accountId: string;
  /** As typed: any number whose digits end in the 10 that matter. */
  readonly number: string;
  readonly projectId: string;
  readonly campaignId: string;
}

/** A number as shown and listed. */
export interface CallNumberSummary {
  readonly number: string;
  readonly project_id: string;
  readonly campaign_id: string;
  readonly connected_at: string;
}

export interface ConnectedCallNumber {
  /** True when the number was not connected before; false when its project and campaign changed. */
  readonly created: boolean;
  readonly number: CallNumberSummary;
}

const clock = (deps: CallNumberAdminDependencies) => (deps.now ?? (() => new Date()))();

const summaryOf = (connection: CallNumberConnection): CallNumberSummary => ({
  number: connection.number,
  project_id: connection.projectId,
  campaign_id: connection.campaignId,
  connected_at: connection.connectedAt,
});

/** The account exists and has the project active, with the campaign active under it. */
const checkTarget = async (deps: CallNumberAdminDependencies, { accountId, projectId, campaignId }: Omit<ConnectCallNumberInput, 'number'>): Promise<void> => {
  const account = await deps.accounts.loadAccount(accountId);
  if (!account) throw new KeyAccountNotFoundError(accountId);
  if (!account.projects.has(projectId)) throw new CallNumberTargetNotFoundError('project', projectId, accountId);
  if (account.campaigns.get(campaignId)?.projectId !== projectId) throw new CallNumberTargetNotFoundError('campaign', campaignId, accountId);
};

const connectionOf = (deps: CallNumberAdminDependencies, input: ConnectCallNumberInput): CallNumberConnection => ({
  accountId: input.accountId,
  number: checkedNumber(input.number),
  projectId: input.projectId,
  campaignId: input.campaignId,
  connectedAt: clock(deps).toISOString(),
});

/** How often a connect reads the number again when another write moved it between its read and its write. */
const CONNECT_ATTEMPTS = 3;
/** Seconds an operator waits before trying a connect again that lost every attempt to other writers. */
const CONNECT_RETRY_AFTER_SECONDS = 1;

/**
 * Connects a number to an account's project and campaign; connecting it again moves it (its
 * connected_at stays), and a removed one is connected anew. Each write is conditioned on what was
 * read, so a connect or removal landing in between is read again, never overwritten.
 */
export const connectCallNumber = async (deps: CallNumberAdminDependencies, input: ConnectCallNumberInput): Promise<ConnectedCallNumber> => {
  const connection = connectionOf(deps, input);
  await checkTarget(deps, connection);
  for (let attempt = 0; attempt < CONNECT_ATTEMPTS; attempt++) {
    const stored = await deps.numbers.findConnection(connection.number, connection.accountId);
    if (stored) {
      if (await deps.numbers.reconnect(stored, connection.projectId, connection.campaignId)) {
        return { created: false, number: summaryOf({ ...connection, connectedAt: stored.connectedAt }) };
      }
    } else if (await deps.numbers.insertConnection(connectionOfNumber(connection))) {
      return { created: true, number: summaryOf(connection) };
    }
  }
  throw new ServiceUnavailableError(CONNECT_RETRY_AFTER_SECONDS);
};

/** Disconnects a number: its calls are then refused (`call_number_not_connected`), and a seed never connects it again. */
export const removeCallNumber = async (deps: CallNumberAdminDependencies, accountId: string, number: string): Promise<void> => {
  const digits = checkedNumber(number);
  if (!(await deps.numbers.removeConnection(digits, accountId))) throw new CallNumberNotFoundError(digits);
};

/** The connected numbers of an existing account, by number. */
export const listCallNumbers = async (deps: CallNumberAdminDependencies, accountId: string): Promise<CallNumberSummary[]> => {
  if (!(await deps.accounts.loadAccount(accountId))) throw new KeyAccountNotFoundError(accountId);
  return (await deps.numbers.listConnections(accountId)).map((connection) => summaryOf(callNumberConnectionOf(connection)));
};

/** What a seed did to a number, in the lifecycle's words. */
const seedOutcomes = { added: 'created', reconnected: 'changed', kept_removed: 'removed' } as const;

/** A seed file's number: added when missing, moved when connected, never connected again once removed. */
export const seedCallNumber = async (deps: CallNumberAdminDependencies, input: ConnectCallNumberInput): Promise<'created' | 'changed' | 'removed'> => {
  const connection = connectionOf(deps, input);
  await checkTarget(deps, connection);
  const outcome = await deps.numbers.seed(connectionOfNumber(connection));
  // Each account's numbers are its own: no other account has this one. Only writers racing it through every attempt end so.
  if (outcome === 'connected_to_another_account') throw new ServiceUnavailableError(CONNECT_RETRY_AFTER_SECONDS);
  return seedOutcomes[outcome];
};

// ---- The admin API (CONTRACT.md sections 9 and 13) -------------------------------------------------------

type Body = Readonly<Record<string, unknown>>;

/** An account's numbers as the admin API manages them: the lifecycle above, its refusals as the API's answers. */
export class AccountCallNumbers {
  readonly #deps: CallNumberAdminDependencies;

  constructor(deps: CallNumberAdminDependencies) {
    this.#deps = deps;
  }

  /** `PUT /accounts/{id}/call-numbers/{number}` `{"projectId", "campaignId"}`: 201 when new, 200 when changed. */
  async connect(accountId: string, number: string, body: Body): Promise<ConnectedCallNumber> {
    const problems = fieldProblems();
    reportUnknownFields(body, ['projectId', 'campaignId'], problems.report);
    const accountProblem = accountIdProblem(accountId);
    if (accountProblem) problems.report('accountId', accountProblem);
    if (callNumberOf(number) === undefined) problems.report('number', 'must have at least 10 digits');
    const projectProblem = projectIdProblem(body.projectId);
    if (projectProblem) problems.report('projectId', projectProblem);
    const campaignProblem = campaignIdProblem(body.campaignId);
    if (campaignProblem) problems.report('campaignId', campaignProblem);
    problems.check();
    return answered(() => connectCallNumber(this.#deps, { accountId, number, projectId: body.projectId as string, campaignId: body.campaignId as string }));
  }

  /** `GET /accounts/{id}/call-numbers`. */
  async list(accountId: string): Promise<CallNumberSummary[]> {
    return answered(() => listCallNumbers(this.#deps, accountId));
  }

  /** `DELETE /accounts/{id}/call-numbers/{number}`: disconnected. */
  async remove(accountId: string, number: string): Promise<void> {
    if (!(await this.#deps.accounts.loadAccount(accountId))) throw new AccountNotFoundError();
    if (callNumberOf(number) === undefined) throw new UnknownCallNumberError();
    await answered(() => removeCallNumber(this.#deps, accountId, number));
  }
}

/** The lifecycle's refusals as the admin API answers them. */
const answered = async <T>(operation: () => Promise<T>): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof KeyAccountNotFoundError) throw new AccountNotFoundError();
    if (error instanceof CallNumberNotFoundError) throw new UnknownCallNumberError();
    if (error instanceof CallNumberTargetNotFoundError) throw error.target === 'project' ? new UnknownProjectError() : new UnknownCampaignError();
    throw error;
  }
};
