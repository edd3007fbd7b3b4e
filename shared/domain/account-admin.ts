/**
 * Account configuration as the CRM changes it (CONTRACT.md sections 5 and 9): an account's settings,
 * its projects and campaigns, created, replaced and retired. The admin API, the admin CLI and the seed
 * file are all clients of these operations, so each rule is written once, here (what a value may be)
 * or in the store's conditional writes (what must already be stored).
 *
 * Retiring is not deleting: a retired project or campaign is kept, with its leads, and is left out of
 * the configuration the lead path reads, so new leads for it get `Project not found` /
 * `Campaign not found`; a later PUT makes it active again.
 */
import { parseQuietHours } from './source-watch.ts';
import {
  AccountNotFoundError,
  CampaignOfAnotherProjectError,
  InvalidConfigurationError,
  UnknownCampaignError,
  UnknownProjectError,
  type FieldErrors,
} from './errors.ts';
import { duplicateSettings, socialPlatforms, type AccountConfig, type AccountSettings, type DuplicateSetting, type SocialPlatform } from './lead.ts';
import type { AccountConfigStore } from './ports/keys-and-accounts.ts';
import { DEFAULT_RETENTION, readRetentionChange, type Retention, type RetentionChange } from './retention.ts';

// ---- Rules ------------------------------------------------------------------------------------------
// Each rule returns what is wrong with a value, as the end of a sentence its caller starts with the
// value's name: the API says `name must be a non-empty string`, the seed file checker
// `account "acc-1".name must be a non-empty string`.

/** Limits of the request fields these ids and names are matched against (CONTRACT.md section 2). */
export const ID_MAX = 100;
export const NAME_MAX = 200;
export const SUB_SOURCE_MAX = 200;

const show = (value: unknown) => JSON.stringify(value);

/** An id or name as lead requests carry it: a non-empty string with no surrounding spaces. */
export const textProblem = (value: unknown, max: number, { noHash = false } = {}): string | undefined => {
  if (typeof value !== 'string' || value.trim() === '') return 'must be a non-empty string';
  if (value !== value.trim()) return `${show(value)} has leading or trailing spaces (requests are trimmed, so it could never match)`;
  if (value.length > max) return `${show(value)} is longer than ${max} characters`;
  // Account ids are part of the lead keys, where `#` separates them from project ids.
  if (noHash && value.includes('#')) return `${show(value)} must not contain "#"`;
  return undefined;
};

export const accountIdProblem = (value: unknown) => textProblem(value, ID_MAX, { noHash: true });
export const projectIdProblem = (value: unknown) => textProblem(value, ID_MAX);
export const campaignIdProblem = (value: unknown) => textProblem(value, ID_MAX);
export const nameProblem = (value: unknown) => textProblem(value, NAME_MAX);
export const websiteSubSourceProblem = (value: unknown) => textProblem(value, SUB_SOURCE_MAX);

export const duplicateSettingProblem = (value: unknown): string | undefined =>
  duplicateSettings.includes(value as DuplicateSetting) ? undefined : `must be one of ${duplicateSettings.join(', ')}, not ${show(value)}`;

export const socialSubSourceProblem = (value: unknown): string | undefined =>
  (socialPlatforms as readonly unknown[]).includes(value) ? undefined : `${show(value)} is not one of ${socialPlatforms.join(', ')}`;

export const repeatedProblem = (value: unknown) => `${show(value)} appears more than once`;

/** Reports one problem of one field; `field` is a path such as `subSources.website[1]`. */
export type ProblemReport = (field: string, problem: string) => void;

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Fields of an object that are not allowed, each reported. */
export const reportUnknownFields = (object: Readonly<Record<string, unknown>>, allowed: readonly string[], report: ProblemReport, prefix = '') => {
  for (const key of Object.keys(object)) if (!allowed.includes(key)) report(`${prefix}${key}`, 'is not a known field');
};

/** A list of unique values that each pass a rule; absent is empty. */
const uniqueList = <T>(value: unknown, field: string, rule: (item: unknown) => string | undefined, report: ProblemReport): T[] => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    report(field, 'must be an array');
    return [];
  }
  const seen = new Set<unknown>();
  value.forEach((item, i) => {
    const problem = rule(item);
    if (problem) return report(`${field}[${i}]`, problem);
    if (seen.has(item)) return report(`${field}[${i}]`, repeatedProblem(item));
    seen.add(item);
  });
  return [...seen] as T[];
};

/**
 * An account's settings as the seed file and `PUT /accounts/{id}` write them:
 * `{"name", "duplicateHandling" (default ignore), "subSources": {"website": [...], "social": [...]}}`, and
 * the account's quiet hours for the quiet-source watch, `silenceQuietHours` (CONTRACT.md section 16), when it has its own.
 * Reports every problem; returns the settings when there was none.
 */
export const readAccountSettings = (raw: Readonly<Record<string, unknown>>, report: ProblemReport): AccountSettings | undefined => {
  let problems = 0;
  const counting: ProblemReport = (field, problem) => {
    problems += 1;
    report(field, problem);
  };
  const name = raw.name;
  const nameIssue = nameProblem(name);
  if (nameIssue) counting('name', nameIssue);
  const duplicateSetting = raw.duplicateHandling ?? 'ignore';
  const settingIssue = duplicateSettingProblem(duplicateSetting);
  if (settingIssue) counting('duplicateHandling', settingIssue);

  let website: string[] = [];
  let social: SocialPlatform[] = [];
  const subSources = raw.subSources ?? {};
  if (!isObject(subSources)) {
    counting('subSources', 'must be an object with "website" and "social" lists');
  } else {
    reportUnknownFields(subSources, ['website', 'social'], counting, 'subSources.');
    website = uniqueList<string>(subSources.website, 'subSources.website', websiteSubSourceProblem, counting);
    social = uniqueList<SocialPlatform>(subSources.social, 'subSources.social', socialSubSourceProblem, counting);
  }
  const quietHours = raw.silenceQuietHours ?? undefined;
  if (quietHours !== undefined && (typeof quietHours !== 'string' || !validQuietHours(quietHours))) counting('silenceQuietHours', 'must be HH:MM-HH:MM (India time) or none');
  const retention = readRetentionChange(raw.retention ?? undefined, counting);
  if (problems > 0) return undefined;
  return {
    name: name as string,
    duplicateSetting: duplicateSetting as DuplicateSetting,
    websiteSubSources: website,
    socialSubSources: social,
    ...(quietHours !== undefined && { silenceQuietHours: (quietHours as string).trim() }),
    ...(retention && Object.keys(retention).length > 0 && { retention }),
  };
};

const validQuietHours = (text: string) => {
  try {
    parseQuietHours(text);
    return true;
  } catch {
    return false;
  }
};

/** A project's or campaign's name: the id when none is given, as in the seed file. */
export const readName = (raw: Readonly<Record<string, unknown>>, fallback: string, report: ProblemReport): string | undefined => {
  if (raw.name === undefined || raw.name === null) return fallback;
  const problem = nameProblem(raw.name);
  if (problem) return void report('name', problem);
  return raw.name as string;
};

/** Collects problems as the API answers them: `{"<field>": ["<field> <problem>", ...]}`. */
export const fieldProblems = () => {
  const errors: Record<string, string[]> = {};
  const report: ProblemReport = (field, problem) => void (errors[field] ??= []).push(`${field} ${problem}`);
  return {
    report,
    /** Throws InvalidConfigurationError when anything was reported. */
    check: () => {
      if (Object.keys(errors).length > 0) throw new InvalidConfigurationError(errors as FieldErrors);
    },
  };
};

/** Checks the request body of a PUT (an object, the allowed fields only); throws InvalidConfigurationError. */
const bodyProblems = (body: Readonly<Record<string, unknown>>, allowed: readonly string[]) => {
  const problems = fieldProblems();
  reportUnknownFields(body, allowed, problems.report);
  return problems;
};

// ---- What the API answers ----------------------------------------------------------------------------

export interface CampaignDescription {
  readonly id: string;
  readonly name: string;
  readonly projectId: string;
}

export interface ProjectDescription {
  readonly id: string;
  readonly name: string;
  readonly campaigns: readonly { readonly id: string; readonly name: string }[];
}

/** An account as `GET /accounts/{id}` answers it: the seed file's shape, with its active projects. */
export interface AccountDescription {
  readonly id: string;
  readonly name: string;
  readonly duplicateHandling: DuplicateSetting;
  readonly subSources: { readonly website: readonly string[]; readonly social: readonly string[] };
  /** Only when the account has its own (the stack's otherwise). */
  readonly silenceQuietHours?: string;
  /** How long leads (`leadDays`, null: until erased) and rejection records (`rejectionDays`) are kept (CONTRACT.md section 18). */
  readonly retention: Retention;
  readonly projects: readonly ProjectDescription[];
}

/** An account's retention with the defaults for what it never set. */
export const retentionOf = (config: Pick<AccountConfig, 'retention'>): Retention => ({
  leadDays: config.retention?.leadDays === undefined ? DEFAULT_RETENTION.leadDays : config.retention.leadDays,
  rejectionDays: config.retention?.rejectionDays ?? DEFAULT_RETENTION.rejectionDays,
});

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const projectOf = (config: AccountConfig, projectId: string): ProjectDescription => ({
  id: projectId,
  name: config.projects.get(projectId)!.name,
  campaigns: [...config.campaigns.values()]
    .filter((campaign) => campaign.projectId === projectId)
    .map(({ id, name }) => ({ id, name }))
    .sort(byId),
});

export const describeAccount = (config: AccountConfig): AccountDescription => ({
  id: config.id,
  name: config.name,
  duplicateHandling: config.duplicateSetting,
  subSources: { website: [...config.websiteSubSources], social: [...config.socialSubSources] },
  ...(config.silenceQuietHours !== undefined && { silenceQuietHours: config.silenceQuietHours }),
  retention: retentionOf(config),
  projects: [...config.projects.keys()].sort().map((projectId) => projectOf(config, projectId)),
});

const sameList = (a: Iterable<string>, b: Iterable<string>) => show([...a]) === show([...b]);

const sameSettings = (config: AccountConfig, settings: AccountSettings) =>
  config.name === settings.name &&
  config.duplicateSetting === settings.duplicateSetting &&
  sameList(config.websiteSubSources, settings.websiteSubSources) &&
  sameList(config.socialSubSources, settings.socialSubSources) &&
  config.silenceQuietHours === settings.silenceQuietHours &&
  sameRetention(retentionOf(config), settings.retention);

/** Whether a change leaves the retention as it is (a member left out always does). */
const sameRetention = (stored: Retention, change: RetentionChange | undefined) =>
  (change?.leadDays === undefined || change.leadDays === stored.leadDays) && (change?.rejectionDays === undefined || change.rejectionDays === stored.rejectionDays);

// ---- Operations ----------------------------------------------------------------------------------------

/** Ids on a path: the rules of the seed file; a bad one answers 400 and changes nothing. */
const checkIds = (ids: Readonly<Record<string, [unknown, (value: unknown) => string | undefined]>>) => {
  const problems = fieldProblems();
  for (const [field, [value, rule]] of Object.entries(ids)) {
    const problem = rule(value);
    if (problem) problems.report(field, problem);
  }
  problems.check();
};

export class AccountAdmin {
  readonly #store: AccountConfigStore;

  constructor(store: AccountConfigStore) {
    this.#store = store;
  }

  async getAccount(accountId: string): Promise<AccountDescription> {
    return describeAccount(await this.#account(accountId));
  }

  /** `PUT /accounts/{id}`: creates the account or replaces its settings; its projects stay. */
  async putAccount(accountId: string, body: Readonly<Record<string, unknown>>): Promise<AccountDescription> {
    checkIds({ accountId: [accountId, accountIdProblem] });
    const problems = bodyProblems(body, ['name', 'duplicateHandling', 'subSources', 'silenceQuietHours', 'retention']);
    const settings = readAccountSettings(body, problems.report);
    problems.check();
    await this.#store.putAccountSettings(accountId, settings!);
    return this.getAccount(accountId);
  }

  /** The admin CLI's `set-duplicates`: one setting, leaving the others as they are. */
  async setDuplicateSetting(accountId: string, setting: string): Promise<void> {
    checkIds({ accountId: [accountId, accountIdProblem], duplicateHandling: [setting, duplicateSettingProblem] });
    if (!(await this.#store.setDuplicateSetting(accountId, setting as DuplicateSetting))) throw new AccountNotFoundError();
  }

  /**
   * The admin CLI's `set-retention`: the members given, the others as they are. Checked whole before
   * anything is written: an out-of-range value changes nothing.
   */
  async setRetention(accountId: string, change: RetentionChange): Promise<Retention> {
    checkIds({ accountId: [accountId, accountIdProblem] });
    const problems = fieldProblems();
    const checked = readRetentionChange(change, problems.report);
    problems.check();
    if (!(await this.#store.setRetention(accountId, checked!))) throw new AccountNotFoundError();
    return (await this.getAccount(accountId)).retention;
  }

  /** `PUT /accounts/{id}/projects/{projectId}`: creates, renames or revives a project. */
  async putProject(accountId: string, projectId: string, body: Readonly<Record<string, unknown>>): Promise<ProjectDescription> {
    checkIds({ accountId: [accountId, accountIdProblem], projectId: [projectId, projectIdProblem] });
    const problems = bodyProblems(body, ['name']);
    const name = readName(body, projectId, problems.report);
    problems.check();
    if ((await this.#store.putProject(accountId, { id: projectId, name: name! })) === 'account_not_found') throw new AccountNotFoundError();
    const config = await this.#account(accountId);
    // Retired again between the write and the read: it was stored as asked.
    return config.projects.has(projectId) ? projectOf(config, projectId) : { id: projectId, name: name!, campaigns: [] };
  }

  /** `DELETE /accounts/{id}/projects/{projectId}`: retires the project and its campaigns. */
  async retireProject(accountId: string, projectId: string): Promise<void> {
    checkIds({ accountId: [accountId, accountIdProblem], projectId: [projectId, projectIdProblem] });
    const outcome = await this.#store.retireProject(accountId, projectId);
    if (outcome === 'account_not_found') throw new AccountNotFoundError();
    if (outcome === 'project_not_found') throw new UnknownProjectError();
  }

  /** `PUT .../projects/{projectId}/campaigns/{campaignId}`: creates, replaces, moves or revives a campaign. */
  async putCampaign(accountId: string, projectId: string, campaignId: string, body: Readonly<Record<string, unknown>>): Promise<CampaignDescription> {
    checkIds({ accountId: [accountId, accountIdProblem], projectId: [projectId, projectIdProblem], campaignId: [campaignId, campaignIdProblem] });
    const problems = bodyProblems(body, ['name']);
    const name = readName(body, campaignId, problems.report);
    problems.check();
    const campaign = { id: campaignId, projectId, name: name! };
    const outcome = await this.#store.putCampaign(accountId, campaign);
    if (outcome === 'account_not_found') throw new AccountNotFoundError();
    if (outcome === 'project_not_found') throw new UnknownProjectError();
    if (outcome === 'campaign_of_another_project') throw new CampaignOfAnotherProjectError();
    return campaign;
  }

  /** `DELETE .../projects/{projectId}/campaigns/{campaignId}`: retires the campaign. */
  async retireCampaign(accountId: string, projectId: string, campaignId: string): Promise<void> {
    checkIds({ accountId: [accountId, accountIdProblem], projectId: [projectId, projectIdProblem], campaignId: [campaignId, campaignIdProblem] });
    const outcome = await this.#store.retireCampaign(accountId, projectId, campaignId);
    if (outcome === 'account_not_found') throw new AccountNotFoundError();
    if (outcome === 'project_not_found') throw new UnknownProjectError();
    if (outcome === 'campaign_not_found') throw new UnknownCampaignError();
  }

  /**
   * Writes a whole account as a seed file describes it (already checked): its settings, then each
   * project, then each campaign, through the same writes and conditions as the API. Only what differs
   * from the stored account is written, so applying the same account twice changes nothing; a
   * retired project or campaign in the file is made active again, as a PUT would.
   */
  async configure(account: AccountConfig): Promise<void> {
    const stored = await this.#store.loadAccount(account.id);
    const settings: AccountSettings = {
      name: account.name,
      duplicateSetting: account.duplicateSetting,
      websiteSubSources: [...account.websiteSubSources],
      socialSubSources: [...account.socialSubSources] as SocialPlatform[],
      ...(account.retention && { retention: account.retention }),
    };
    if (!stored || !sameSettings(stored, settings)) await this.#store.putAccountSettings(account.id, settings);
    for (const project of account.projects.values()) {
      if (stored?.projects.get(project.id)?.name !== project.name) await this.#store.putProject(account.id, project);
    }
    for (const campaign of account.campaigns.values()) {
      const current = stored?.campaigns.get(campaign.id);
      if (current?.projectId === campaign.projectId && current.name === campaign.name) continue;
      const outcome = await this.#store.putCampaign(account.id, campaign);
      if (outcome === 'campaign_of_another_project') {
        throw new Error(`account ${show(account.id)}: campaign ${show(campaign.id)} is an active campaign of another project; retire it there first`);
      }
    }
  }

  async #account(accountId: string): Promise<AccountConfig> {
    const config = await this.#store.loadAccount(accountId);
    if (!config) throw new AccountNotFoundError();
    return config;
  }
}
