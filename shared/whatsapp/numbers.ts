/**
 * The WhatsApp Business numbers an account connects to its projects (CONTRACT.md section 15): the
 * first message of a conversation with a connected number becomes a lead of that number's project and
 * campaign. A number is named by Meta's `phone_number_id` (the id of the business number, sent in each
 * notification's `metadata`), not by its digits: that is what a notification names, and one id is one
 * number whatever its display form. The id is ASCII digits, 1 to 200 of them (section 14's bound on
 * every identifier a webhook sends). One number belongs to one account.
 *
 * Numbers are connections of the one connection store (shared/domain/ports.ts ConnectionRegistry), of
 * the platform-wide kind `whatsapp_number` (like Google's forms: keyed by the id alone, listed per
 * account apart). A removed number is remembered as removed, so applying a seed again never connects
 * it back (section 14); connecting it again by hand does. The admin CLI, the seed and the admin API are
 * thin clients of the operations here.
 */
import { accountIdProblem, campaignIdProblem, fieldProblems, projectIdProblem, reportUnknownFields } from '../domain/account-admin.ts';
import { AccountNotFoundError, KeyAccountNotFoundError, UnknownCampaignError, UnknownProjectError } from '../domain/errors.ts';
import type { AccountReader, Connection, ConnectionRegistry } from '../domain/ports.ts';
import {
  InvalidPhoneNumberIdError,
  UnknownWhatsAppNumberError,
  WhatsAppNumberConflictError,
  WhatsAppNumberNotFoundError,
  WhatsAppNumberOfAnotherAccountError,
  WhatsAppNumberTargetNotFoundError,
} from './number-errors.ts';

/** The kind of connection a WhatsApp number is in the connection store. */
export const WHATSAPP_NUMBER_CONNECTION = 'whatsapp_number' as const;

/** The most characters of a phone_number_id (CONTRACT.md section 14: every identifier a webhook sends). */
export const PHONE_NUMBER_ID_MAX = 200;

/** Meta's id of a business number: ASCII digits, 1 to 200 of them. */
export const isPhoneNumberId = (text: string): boolean => /^[0-9]+$/.test(text) && text.length <= PHONE_NUMBER_ID_MAX;

const checkedId = (text: string): string => {
  const trimmed = text.trim();
  if (!isPhoneNumberId(trimmed)) throw new InvalidPhoneNumberIdError(text);
  return trimmed;
};

// ---- The number lifecycle (admin CLI, seed, admin API) ----------------------------------------------

export interface WhatsAppNumberAdminDependencies {
  /** The connection store's registry of kind `whatsapp_number`. */
  readonly numbers: ConnectionRegistry;
  readonly accounts: AccountReader;
  readonly now?: () => Date;
}

export interface ConnectWhatsAppNumberInput {
  readonly accountId: string;
  readonly phoneNumberId: string;
  readonly projectId: string;
  readonly campaignId: string;
}

/** A number as shown and listed (CONTRACT.md section 15's fields). */
export interface WhatsAppNumberSummary {
  readonly phone_number_id: string;
  readonly project_id: string;
  readonly campaign_id: string;
  readonly connected_at: string;
}

export interface ConnectedWhatsAppNumber {
  /** True when the number was not connected before; false when its project and campaign changed. */
  readonly created: boolean;
  readonly number: WhatsAppNumberSummary;
}

const clock = (deps: WhatsAppNumberAdminDependencies) => (deps.now ?? (() => new Date()))();

const summaryOf = (connection: Omit<Connection, 'keyHash'>): WhatsAppNumberSummary => ({
  phone_number_id: connection.id,
  project_id: connection.projectId,
  campaign_id: connection.campaignId,
  connected_at: connection.connectedAt,
});

/** The account exists and has the project active, with the campaign active under it. */
const checkTarget = async (deps: WhatsAppNumberAdminDependencies, { accountId, projectId, campaignId }: Omit<ConnectWhatsAppNumberInput, 'phoneNumberId'>): Promise<void> => {
  const account = await deps.accounts.loadAccount(accountId);
  if (!account) throw new KeyAccountNotFoundError(accountId);
  if (!account.projects.has(projectId)) throw new WhatsAppNumberTargetNotFoundError('project', projectId, accountId);
  if (account.campaigns.get(campaignId)?.projectId !== projectId) throw new WhatsAppNumberTargetNotFoundError('campaign', campaignId, accountId);
};

const connectionOf = (deps: WhatsAppNumberAdminDependencies, input: ConnectWhatsAppNumberInput): Connection => ({
  kind: WHATSAPP_NUMBER_CONNECTION,
  id: checkedId(input.phoneNumberId),
  accountId: input.accountId,
  projectId: input.projectId,
  campaignId: input.campaignId,
  connectedAt: clock(deps).toISOString(),
});

/**
 * Connects a number to an account's project and campaign; connecting it again moves it (its
 * connected_at stays), and a removed one is connected anew. Another account's number is refused. Each
 * write is conditioned on what was read, so a connect or removal landing in between is read again.
 */
export const connectWhatsAppNumber = async (deps: WhatsAppNumberAdminDependencies, input: ConnectWhatsAppNumberInput): Promise<ConnectedWhatsAppNumber> => {
  const connection = connectionOf(deps, input);
  await checkTarget(deps, connection);
  // Two tries: a number connected by someone else between the read and the write is read again.
  for (let attempt = 0; attempt < 2; attempt++) {
    const stored = await deps.numbers.findConnection(connection.id);
    if (stored && stored.accountId !== connection.accountId) throw new WhatsAppNumberOfAnotherAccountError(connection.id);
    if (stored) {
      if (await deps.numbers.reconnect(stored, connection.projectId, connection.campaignId)) {
        return { created: false, number: summaryOf({ ...connection, connectedAt: stored.connectedAt }) };
      }
      continue;
    }
    if (await deps.numbers.insertConnection(connection)) return { created: true, number: summaryOf(connection) };
  }
  throw new WhatsAppNumberOfAnotherAccountError(connection.id);
};

/** Disconnects an account's number: its messages are then ignored, as an unconnected number's, and a seed never connects it again. */
export const removeWhatsAppNumber = async (deps: WhatsAppNumberAdminDependencies, accountId: string, phoneNumberId: string): Promise<void> => {
  const id = checkedId(phoneNumberId);
  if (!(await deps.numbers.removeConnection(id, accountId))) throw new WhatsAppNumberNotFoundError(id);
};

/** The connected numbers of an existing account, by id. */
export const listWhatsAppNumbers = async (deps: WhatsAppNumberAdminDependencies, accountId: string): Promise<WhatsAppNumberSummary[]> => {
  if (!(await deps.accounts.loadAccount(accountId))) throw new KeyAccountNotFoundError(accountId);
  return (await deps.numbers.listConnections(accountId)).map(summaryOf);
};

/** What a seed did to a number, in the lifecycle's words. */
const seedOutcomes = { added: 'created', reconnected: 'changed', kept_removed: 'removed' } as const;

/** A seed file's number: added when missing, moved when the account's, never connected again once removed; another account's is refused. */
export const seedWhatsAppNumber = async (deps: WhatsAppNumberAdminDependencies, input: ConnectWhatsAppNumberInput): Promise<'created' | 'changed' | 'removed'> => {
  const connection = connectionOf(deps, input);
  await checkTarget(deps, connection);
  const outcome = await deps.numbers.seed(connection);
  if (outcome === 'connected_to_another_account') throw new WhatsAppNumberOfAnotherAccountError(connection.id);
  return seedOutcomes[outcome];
};

// ---- The admin API (CONTRACT.md sections 9 and 15) -------------------------------------------------------

type Body = Readonly<Record<string, unknown>>;

/** An account's numbers as the admin API manages them: the lifecycle above, its refusals as the API's answers. */
export class AccountWhatsAppNumbers {
  readonly #deps: WhatsAppNumberAdminDependencies;

  constructor(deps: WhatsAppNumberAdminDependencies) {
    this.#deps = deps;
  }

  /** `PUT /accounts/{id}/whatsapp-numbers/{phoneNumberId}` `{"projectId", "campaignId"}`: 201 when new, 200 when changed, 409 another account's. */
  async connect(accountId: string, phoneNumberId: string, body: Body): Promise<ConnectedWhatsAppNumber> {
    const problems = fieldProblems();
    reportUnknownFields(body, ['projectId', 'campaignId'], problems.report);
    const accountProblem = accountIdProblem(accountId);
    if (accountProblem) problems.report('accountId', accountProblem);
    if (!isPhoneNumberId(phoneNumberId)) problems.report('phoneNumberId', `must be Meta's phone number id, 1 to ${PHONE_NUMBER_ID_MAX} digits`);
    const projectProblem = projectIdProblem(body.projectId);
    if (projectProblem) problems.report('projectId', projectProblem);
    const campaignProblem = campaignIdProblem(body.campaignId);
    if (campaignProblem) problems.report('campaignId', campaignProblem);
    problems.check();
    return answered(() => connectWhatsAppNumber(this.#deps, { accountId, phoneNumberId, projectId: body.projectId as string, campaignId: body.campaignId as string }));
  }

  /** `GET /accounts/{id}/whatsapp-numbers`. */
  async list(accountId: string): Promise<WhatsAppNumberSummary[]> {
    return answered(() => listWhatsAppNumbers(this.#deps, accountId));
  }

  /** `DELETE /accounts/{id}/whatsapp-numbers/{phoneNumberId}`: disconnected; another account's number is not found. */
  async remove(accountId: string, phoneNumberId: string): Promise<void> {
    if (!(await this.#deps.accounts.loadAccount(accountId))) throw new AccountNotFoundError();
    if (!isPhoneNumberId(phoneNumberId)) throw new UnknownWhatsAppNumberError();
    await answered(() => removeWhatsAppNumber(this.#deps, accountId, phoneNumberId));
  }
}

/** The lifecycle's refusals as the admin API answers them. */
const answered = async <T>(operation: () => Promise<T>): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof KeyAccountNotFoundError) throw new AccountNotFoundError();
    if (error instanceof WhatsAppNumberNotFoundError) throw new UnknownWhatsAppNumberError();
    if (error instanceof WhatsAppNumberOfAnotherAccountError) throw new WhatsAppNumberConflictError();
    if (error instanceof WhatsAppNumberTargetNotFoundError) throw error.target === 'project' ? new UnknownProjectError() : new UnknownCampaignError();
    throw error;
  }
};
