/**
 * Google Ads lead forms connected to accounts (CONTRACT.md section 10), like API keys: each form is
 * connected to one account, project and campaign, with a key of its own that Google sends back in
 * every delivery (`google_key`). The key is stored only as its SHA-256 hash and shown once, when the
 * form is connected or its key rotated. The admin CLI, the seed and the admin API are thin clients
 * of the operations here; the webhook checks deliveries with the intake's ConnectionDirectory.
 */
import { randomBytes } from 'node:crypto';
import { hashApiKey } from './api-keys.ts';
import { accountIdProblem, campaignIdProblem, fieldProblems, projectIdProblem, reportUnknownFields } from './account-admin.ts';
import { AccountNotFoundError, KeyAccountNotFoundError, UnknownCampaignError, UnknownProjectError } from './errors.ts';
import {
  GoogleFormConflictError,
  GoogleFormNotFoundError,
  GoogleFormOfAnotherAccountError,
  GoogleFormTargetNotFoundError,
  InvalidGoogleFormIdError,
  UnknownGoogleFormError,
} from './google-errors.ts';
import type { AccountReader, ConnectionRegistry, GoogleFormConnection } from './ports.ts';

/** Google's forms are connections of the kind `google_form` (ports.ts), their id Google's form id: one store for every kind. */
export const GOOGLE_FORM_CONNECTION = 'google_form';

// ---- Keys and form ids --------------------------------------------------------------------------------

/** A form's key as stored: the same SHA-256 hex as API keys. */
export const hashGoogleFormKey = hashApiKey;

/** 192 random bits (the contract asks for at least 128), in characters Google's key field takes. */
const newGoogleFormKey = () => `gk_${randomBytes(24).toString('base64url')}`;

/** Google's form ids are 64-bit integers: their decimal digits, with no leading zero. */
export const isGoogleFormId = (text: string): boolean => /^(0|[1-9]\d{0,19})$/.test(text);

const checkedFormId = (formId: string): string => {
  const trimmed = formId.trim();
  if (!isGoogleFormId(trimmed)) throw new InvalidGoogleFormIdError(formId);
  return trimmed;
};


// ---- The form lifecycle (admin CLI, seed, admin API) --------------------------------------------------

export interface GoogleFormAdminDependencies {
  readonly forms: ConnectionRegistry;
  readonly accounts: AccountReader;
  readonly now?: () => Date;
}

export interface ConnectGoogleFormInput {
  readonly accountId: string;
  readonly formId: string;
  readonly projectId: string;
  readonly campaignId: string;
}

/** A form as shown when connected or rotated; `key` only when a new key was made (shown this once). */
export interface GoogleFormIssued {
  readonly form_id: string;
  readonly account_id: string;
  readonly project_id: string;
  readonly campaign_id: string;
  readonly key?: string;
}

/** A form as listed: never a key or its hash. */
export interface GoogleFormSummary {
  readonly form_id: string;
  readonly project_id: string;
  readonly campaign_id: string;
  readonly connected_at: string;
}

export interface ConnectedGoogleForm {
  /** True when the form was new (and has a new key); false when an existing connection was changed. */
  readonly created: boolean;
  readonly form: GoogleFormIssued;
}

const clock = (deps: GoogleFormAdminDependencies) => (deps.now ?? (() => new Date()))();

const issuedOf = (form: Pick<GoogleFormConnection, 'id' | 'accountId' | 'projectId' | 'campaignId'>, key?: string): GoogleFormIssued => ({
  form_id: form.id,
  account_id: form.accountId,
  project_id: form.projectId,
  campaign_id: form.campaignId,
  ...(key !== undefined && { key }),
});

/** The account exists and has the project active, with the campaign active under it. */
const checkTarget = async (deps: GoogleFormAdminDependencies, { accountId, projectId, campaignId }: ConnectGoogleFormInput): Promise<void> => {
  const account = await deps.accounts.loadAccount(accountId);
  if (!account) throw new KeyAccountNotFoundError(accountId);
  if (!account.projects.has(projectId)) throw new GoogleFormTargetNotFoundError('project', projectId, accountId);
  if (account.campaigns.get(campaignId)?.projectId !== projectId) throw new GoogleFormTargetNotFoundError('campaign', campaignId, accountId);
};

/**
 * Connects a form to an account's project and campaign with a new key, shown once. A form the
 * account has connected already keeps its key (none is shown) and moves to the project and campaign
 * given; a form of another account is refused.
 */
export const connectGoogleForm = async (deps: GoogleFormAdminDependencies, input: ConnectGoogleFormInput): Promise<ConnectedGoogleForm> => {
  const target = { ...input, formId: checkedFormId(input.formId) };
  await checkTarget(deps, target);
  // Two tries: a form connected by someone else between the read and the write is read again.
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = await deps.forms.findConnection(target.formId);
    if (existing && existing.accountId !== target.accountId) throw new GoogleFormOfAnotherAccountError(target.formId);
    if (existing) {
      if (await deps.forms.reconnect(existing, target.projectId, target.campaignId)) {
        return { created: false, form: issuedOf({ ...target, id: target.formId }) };
      }
      continue;
    }
    const key = newGoogleFormKey();
    const form: GoogleFormConnection = {
      kind: GOOGLE_FORM_CONNECTION,
      id: target.formId,
      accountId: target.accountId,
      projectId: target.projectId,
      campaignId: target.campaignId,
      keyHash: hashGoogleFormKey(key),
      connectedAt: clock(deps).toISOString(),
    };
    if (await deps.forms.insertConnection(form)) return { created: true, form: issuedOf(form, key) };
  }
  throw new GoogleFormOfAnotherAccountError(target.formId);
};

/** A new key for a connected form, shown once; the old key answers 401 from now on. */
export const rotateGoogleFormKey = async (deps: GoogleFormAdminDependencies, formId: string, accountId?: string): Promise<GoogleFormIssued> => {
  const id = checkedFormId(formId);
  const key = newGoogleFormKey();
  const connection = await deps.forms.replaceKey(id, hashGoogleFormKey(key), accountId);
  if (!connection) throw new GoogleFormNotFoundError(id);
  return issuedOf(connection, key);
};

/** Disconnects a form: its deliveries answer 401 from now on. */
export const removeGoogleForm = async (deps: GoogleFormAdminDependencies, formId: string, accountId?: string): Promise<void> => {
  const id = checkedFormId(formId);
  if (!(await deps.forms.removeConnection(id, accountId))) throw new GoogleFormNotFoundError(id);
};

/** The forms of an existing account, by form id. */
export const listGoogleForms = async (deps: GoogleFormAdminDependencies, accountId: string): Promise<GoogleFormSummary[]> => {
  if (!(await deps.accounts.loadAccount(accountId))) throw new KeyAccountNotFoundError(accountId);
  return (await deps.forms.listConnections(accountId)).map((form) => ({
    form_id: form.id,
    project_id: form.projectId,
    campaign_id: form.campaignId,
    connected_at: form.connectedAt,
  }));
};

/**
 * A seed file's form, with the key it names (plain text in a local seed only), applied at every
 * `npm start`: it adds the form when it was never connected, moves a connected form to the seed's
 * project and campaign keeping its key (a rotation stands), and never brings back a removed form.
 */
export const seedGoogleForm = async (deps: GoogleFormAdminDependencies, input: ConnectGoogleFormInput & { readonly key: string }): Promise<void> => {
  const target = { ...input, formId: checkedFormId(input.formId) };
  await checkTarget(deps, target);
  const outcome = await deps.forms.seed({
    kind: GOOGLE_FORM_CONNECTION,
    id: target.formId,
    accountId: target.accountId,
    projectId: target.projectId,
    campaignId: target.campaignId,
    keyHash: hashGoogleFormKey(input.key),
    connectedAt: clock(deps).toISOString(),
  });
  if (outcome === 'connected_to_another_account') throw new GoogleFormOfAnotherAccountError(target.formId);
};

// ---- The admin API (CONTRACT.md sections 9 and 10) -------------------------------------------------------

type Body = Readonly<Record<string, unknown>>;

/** An account's forms as the admin API manages them: the lifecycle above, its refusals as the API's answers. */
export class AccountGoogleForms {
  readonly #deps: GoogleFormAdminDependencies;

  constructor(deps: GoogleFormAdminDependencies) {
    this.#deps = deps;
  }

  /** `PUT /accounts/{id}/google-forms/{formId}` `{"projectId", "campaignId"}`: 201 with the key when new, 200 without when reconnected. */
  async connect(accountId: string, formId: string, body: Body): Promise<ConnectedGoogleForm> {
    const problems = fieldProblems();
    reportUnknownFields(body, ['projectId', 'campaignId'], problems.report);
    const accountProblem = accountIdProblem(accountId);
    if (accountProblem) problems.report('accountId', accountProblem);
    if (!isGoogleFormId(formId)) problems.report('formId', 'must be the Google Ads form id, digits only');
    const projectProblem = projectIdProblem(body.projectId);
    if (projectProblem) problems.report('projectId', projectProblem);
    const campaignProblem = campaignIdProblem(body.campaignId);
    if (campaignProblem) problems.report('campaignId', campaignProblem);
    problems.check();
    return answered(() =>
      connectGoogleForm(this.#deps, { accountId, formId, projectId: body.projectId as string, campaignId: body.campaignId as string }),
    );
  }

  /** `GET /accounts/{id}/google-forms`: never a key or a hash. */
  async list(accountId: string): Promise<GoogleFormSummary[]> {
    return answered(() => listGoogleForms(this.#deps, accountId));
  }

  /** `DELETE /accounts/{id}/google-forms/{formId}`: disconnected. */
  async remove(accountId: string, formId: string): Promise<void> {
    await this.#existingAccount(accountId);
    if (!isGoogleFormId(formId)) throw new UnknownGoogleFormError();
    await answered(() => removeGoogleForm(this.#deps, formId, accountId));
  }

  /** `POST /accounts/{id}/google-forms/{formId}/rotate-key`: a new key, shown this once. */
  async rotate(accountId: string, formId: string): Promise<GoogleFormIssued> {
    await this.#existingAccount(accountId);
    if (!isGoogleFormId(formId)) throw new UnknownGoogleFormError();
    return answered(() => rotateGoogleFormKey(this.#deps, formId, accountId));
  }

  async #existingAccount(accountId: string): Promise<void> {
    if (!(await this.#deps.accounts.loadAccount(accountId))) throw new AccountNotFoundError();
  }
}

/** The lifecycle's refusals as the admin API answers them; another account's form is "not found" except on PUT. */
const answered = async <T>(operation: () => Promise<T>): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof KeyAccountNotFoundError) throw new AccountNotFoundError();
    if (error instanceof GoogleFormNotFoundError) throw new UnknownGoogleFormError();
    if (error instanceof GoogleFormOfAnotherAccountError) throw new GoogleFormConflictError();
    if (error instanceof GoogleFormTargetNotFoundError) throw error.target === 'project' ? new UnknownProjectError() : new UnknownCampaignError();
    throw error;
  }
};
