/**
 * Seed files (CONTRACT.md section 5): accounts with their projects, campaigns and sub sources, and API
 * keys. `parseSeed` checks the whole file and names every problem before anything is written, so a bad
 * file is never half-applied; `applySeed` writes it idempotently (every item is a put of the same
 * value, so applying a file twice changes nothing; a project or campaign retired through the API is
 * made active again, as a PUT would). Used by `npm start`, `npm run invoke` and the
 * admin CLI's `seed` command.
 *
 * A lead source's own member of an account (Meta's `metaPages`, Google's `googleForms`, the calls'
 * `callNumbers`) is its descriptor's `seed`: read and written by the module it names
 * (shared/sources/seed-member.ts), in the registry's order.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import {
  AccountAdmin,
  accountIdProblem,
  campaignIdProblem,
  projectIdProblem,
  readAccountSettings,
  readName,
  reportUnknownFields,
} from '../../shared/domain/account-admin.ts';
import { derivedKeyId, hashApiKey, isKeyId, keyOptions } from '../../shared/domain/api-keys.ts';
import { InvalidKeyOptionError } from '../../shared/domain/errors.ts';
import type { AccountConfig, Campaign, Project } from '../../shared/domain/lead.ts';
import type { StoredApiKey } from '../../shared/domain/ports/keys-and-accounts.ts';
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { seedMembers, sourceKeyScopes } from '../../shared/sources/registry.ts';
import { connectionSeedMember } from '../../shared/sources/connection-seed.ts';
import type { SeedMember } from '../../shared/sources/seed-member.ts';
// Portal logins (CONTRACT.md section 17): the pulled sources' one member, after the webhook sources'.
import portalLoginsMember from '../../shared/pulled/seed.ts';

export interface SeedApiKey {
  readonly key: string;
  readonly accountId: string;
  readonly active: boolean;
  /** Given, or derived from the key's hash, so applying the same file twice gives the same id. */
  readonly keyId: string;
  readonly options: Pick<StoredApiKey, 'label' | 'endpoints' | 'origins' | 'expiresAt'>;
}

/**
 * A checked seed file: its accounts and keys, and each source's member (`metaPages`, `googleForms`,
 * `callNumbers`: its entries across the accounts), present when the file has any.
 */
export interface Seed {
  readonly accounts: readonly AccountConfig[];
  readonly apiKeys: readonly SeedApiKey[];
  readonly [member: string]: readonly unknown[] | undefined;
}

/**
 * Each declared source's seed member, by its name in an account, in the registry's order: its own module's
 * (its descriptor's `seed`), or its kind of connection's, made of the declaration (connection-seed.ts).
 */
const sourceMembers: readonly { readonly member: string; readonly module: SeedMember<unknown> }[] = await Promise.all(
  seedMembers.map(async ({ source, member }) => ({
    member,
    module: source.seed
      ? ((await import(path.join(import.meta.dirname, '..', '..', source.seed.module))) as { default: SeedMember<unknown> }).default
      : (connectionSeedMember(source.connection!) as SeedMember<unknown>),
  })),
).then((members) => [...members, { member: 'portals', module: portalLoginsMember as SeedMember<unknown> }]);

/** A seed file that breaks the format; `problems` names each one, with where it is. */
export class SeedError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[], source = 'seed') {
    super(`${source} is invalid: ${problems.join('; ')}`);
    this.name = 'SeedError';
    this.problems = problems;
  }
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);

/**
 * Checks a parsed seed file; throws a SeedError listing every problem. Each value is checked by the
 * rule the admin API applies to it (shared/domain/account-admin.ts); this only walks the file.
 */
export const parseSeed = (input: unknown, source = 'seed'): Seed => {
  const problems: string[] = [];
  const problem = (text: string) => void problems.push(text);

  const fields = (object: Json, at: string, allowed: readonly string[]) => reportUnknownFields(object, allowed, (field) => problem(`${at}: unknown field ${show(field)}`));

  /** A value checked by a rule; reported as `<at> <problem>`. */
  const checked = (value: unknown, at: string, rule: (value: unknown) => string | undefined): string | undefined => {
    const issue = rule(value);
    if (issue) return void problem(`${at} ${issue}`);
    return value as string;
  };

  const list = (value: unknown, at: string): unknown[] => {
    if (value === undefined) return [];
    if (Array.isArray(value)) return value;
    problem(`${at} must be an array`);
    return [];
  };

  if (!isObject(input)) throw new SeedError(['the file must hold a JSON object with "accounts" and "apiKeys"'], source);
  fields(input, 'seed', ['accounts', 'apiKeys']);

  const accounts: AccountConfig[] = [];
  const accountIds = new Set<string>();
  const members = sourceMembers.map(({ member, module }) => ({ member, read: module.reader(), entries: [] as unknown[] }));
  list(input.accounts, 'accounts').forEach((raw, i) => {
    let at = `accounts[${i}]`;
    if (!isObject(raw)) return problem(`${at} must be an object`);
    const id = checked(raw.id, `${at}.id`, accountIdProblem);
    if (id !== undefined) {
      at = `account ${show(id)}`;
      if (accountIds.has(id)) problem(`account id ${show(id)} appears more than once`);
      accountIds.add(id);
    }
    fields(raw, at, ['id', 'name', 'duplicateHandling', 'projects', 'subSources', 'silenceQuietHours', 'retention', ...members.map(({ member }) => member)]);
    const settings = readAccountSettings(raw, (field, issue) => problem(`${at}.${field} ${issue}`));

    const projects = new Map<string, Project>();
    const campaigns = new Map<string, Campaign>();
    list(raw.projects, `${at}.projects`).forEach((rawProject, j) => {
      let projectAt = `${at}.projects[${j}]`;
      if (!isObject(rawProject)) return problem(`${projectAt} must be an object`);
      const projectId = checked(rawProject.id, `${projectAt}.id`, projectIdProblem);
      if (projectId !== undefined) {
        projectAt = `${at}, project ${show(projectId)}`;
        if (projects.has(projectId)) problem(`${at}: project id ${show(projectId)} appears more than once`);
        projects.set(projectId, { id: projectId, name: readName(rawProject, projectId, (field, issue) => problem(`${projectAt}.${field} ${issue}`)) ?? projectId });
      }
      fields(rawProject, projectAt, ['id', 'name', 'campaigns']);
      list(rawProject.campaigns, `${projectAt}.campaigns`).forEach((rawCampaign, k) => {
        const campaignAt = `${projectAt}.campaigns[${k}]`;
        if (!isObject(rawCampaign)) return problem(`${campaignAt} must be an object`);
        fields(rawCampaign, campaignAt, ['id', 'name']);
        const campaignId = checked(rawCampaign.id, `${campaignAt}.id`, campaignIdProblem);
        if (campaignId === undefined || projectId === undefined) return;
        const other = campaigns.get(campaignId);
        if (other) {
          problem(
            other.projectId === projectId
              ? `${at}: campaign ${show(campaignId)} appears twice in project ${show(projectId)}`
              : `${at}: campaign ${show(campaignId)} is in two projects, ${show(other.projectId)} and ${show(projectId)} (a campaign belongs to one project)`,
          );
          return;
        }
        const campaignName = readName(rawCampaign, campaignId, (field, issue) => problem(`${campaignAt}.${field} ${issue}`)) ?? campaignId;
        campaigns.set(campaignId, { id: campaignId, projectId, name: campaignName });
      });
    });

    for (const { member, read, entries } of members) entries.push(...read(raw[member], { accountId: id, at, projects, campaigns, problem }));

    if (id !== undefined && settings) {
      accounts.push({
        id,
        name: settings.name,
        duplicateSetting: settings.duplicateSetting,
        projects,
        campaigns,
        websiteSubSources: new Set(settings.websiteSubSources),
        socialSubSources: new Set(settings.socialSubSources),
        ...(settings.retention && { retention: settings.retention }),
      });
    }
  });

  const apiKeys: SeedApiKey[] = [];
  const keys = new Set<string>();
  const keyIds = new Set<string>();
  list(input.apiKeys, 'apiKeys').forEach((raw, i) => {
    const at = `apiKeys[${i}]`;
    if (!isObject(raw)) return problem(`${at} must be an object`);
    fields(raw, at, ['key', 'accountId', 'active', 'keyId', 'label', 'endpoints', 'origins', 'expiresAt']);
    // Never echo a key in an error: the message may end up in a terminal log.
    const key = typeof raw.key === 'string' && raw.key.trim() !== '' ? raw.key : void problem(`${at}.key must be a non-empty string`);
    if (key !== undefined && key !== key.trim()) problem(`${at}.key has leading or trailing spaces`);
    const duplicateKey = key !== undefined && keys.has(key);
    if (duplicateKey) problem(`${at}.key is the same key as an earlier entry`);
    if (key !== undefined) keys.add(key);
    // An entry may point to an account the file does not define: that key answers 404 Client not found.
    const accountId = checked(raw.accountId, `${at}.accountId`, accountIdProblem);
    const active = raw.active ?? true;
    if (typeof active !== 'boolean') problem(`${at}.active must be true or false`);
    const keyId = raw.keyId === undefined ? (key === undefined ? undefined : derivedKeyId(hashApiKey(key))) : raw.keyId;
    if (typeof keyId !== 'string' || !isKeyId(keyId)) {
      if (key !== undefined || raw.keyId !== undefined) problem(`${at}.keyId must be key_ followed by letters and digits, not ${show(raw.keyId)}`);
    } else if (keyIds.has(keyId) && !(raw.keyId === undefined && key !== undefined && keys.has(key) && duplicateKey)) {
      problem(`${at}.keyId ${show(keyId)} is the key id of an earlier entry`);
    } else {
      keyIds.add(keyId);
    }
    let options: SeedApiKey['options'] | undefined;
    try {
      const listOf = (value: unknown, name: string) => {
        if (value === undefined || value === null) return value;
        if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new InvalidKeyOptionError(name, 'must be an array of strings');
        return value as string[];
      };
      if (raw.label !== undefined && raw.label !== null && typeof raw.label !== 'string') throw new InvalidKeyOptionError('label', 'must be a string');
      if (raw.expiresAt !== undefined && raw.expiresAt !== null && typeof raw.expiresAt !== 'string') throw new InvalidKeyOptionError('expiresAt', 'must be an ISO-8601 string');
      // A seed may hold an expired key on purpose (to try the 401), so a past expiry is allowed here.
      options = keyOptions(
        {
          label: raw.label as string | null | undefined,
          endpoints: listOf(raw.endpoints, 'endpoints'),
          origins: listOf(raw.origins, 'origins'),
          expiresAt: raw.expiresAt as string | null | undefined,
        },
        new Date(),
        { keyScopes: sourceKeyScopes, allowPastExpiry: true },
      );
    } catch (error) {
      if (!(error instanceof InvalidKeyOptionError)) throw error;
      problem(`${at}: ${error.option === 'expires' ? 'expiresAt' : error.option}: ${error.message}`);
    }
    if (key !== undefined && accountId !== undefined && typeof keyId === 'string' && options) {
      apiKeys.push({ key, accountId, active: active === true, keyId, options });
    }
  });

  if (problems.length > 0) throw new SeedError(problems, source);
  return { accounts, apiKeys, ...Object.fromEntries(members.filter(({ entries }) => entries.length > 0).map(({ member, entries }) => [member, entries])) };
};

/** Reads and checks a seed file. */
export const readSeedFile = async (file: string): Promise<Seed> => {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the seed file ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (error) {
    throw new SeedError([`not valid JSON (${(error as Error).message})`], file);
  }
  return parseSeed(json, file);
};

/**
 * Writes a checked seed through the admin operations: each account with its projects and campaigns,
 * then the keys, as hashes only. Throws KeyIdTakenError when a key id of the file belongs to another key
 * already stored.
 */
export const applySeed = async (repository: DynamoDbRepository, seed: Seed): Promise<void> => {
  const admin = new AccountAdmin(repository.accounts);
  for (const account of seed.accounts) await admin.configure(account);
  const createdAt = new Date().toISOString();
  for (const { key, accountId, active, keyId, options } of seed.apiKeys) {
    await repository.keys.putKey(hashApiKey(key), { keyId, accountId, active, graceEndsAt: null, createdAt, ...options });
  }
  for (const { member, module } of sourceMembers) {
    const entries = seed[member];
    if (entries?.length) await module.apply(repository, entries);
  }
};

/**
 * The key the local run's banner shows (CONTRACT.md sections 1 and 20): the seed's first active key of an
 * account the seed defines that may call every one of `endpoints` (the four lead endpoints) from a
 * terminal: all endpoints or those four, no browser origins, not expired. A key scoped to calls alone, or
 * a browser key, would make every curl line the banner prints answer 403.
 */
export const demoKeyOf = (seed: Seed, endpoints: readonly string[], now: Date = new Date()): { key: string; account: AccountConfig } | undefined => {
  const sendsToEvery = ({ options }: SeedApiKey) =>
    (options.endpoints == null || endpoints.every((endpoint) => options.endpoints!.includes(endpoint as never))) &&
    (options.origins == null || options.origins.length === 0) &&
    (options.expiresAt == null || Date.parse(options.expiresAt) > now.getTime());
  for (const apiKey of seed.apiKeys) {
    const account = seed.accounts.find((a) => a.id === apiKey.accountId);
    if (apiKey.active && account && sendsToEvery(apiKey)) return { key: apiKey.key, account };
  }
  return undefined;
};
