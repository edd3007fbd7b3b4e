/**
 * Seed files (CONTRACT.md section 5): accounts with their projects, campaigns and sub sources, and API
 * keys. `parseSeed` checks the whole file and names every problem before anything is written, so a bad
 * file is never half-applied; `applySeed` writes it idempotently (every item is a put of the same
 * value, so applying a file twice changes nothing). Used by `npm start`, `npm run invoke` and the
 * admin CLI's `seed` command.
 */
import { readFile } from 'node:fs/promises';
import { derivedKeyId, hashApiKey, isKeyId, keyOptions } from '../../shared/domain/api-keys.ts';
import { InvalidKeyOptionError } from '../../shared/domain/errors.ts';
import { duplicateSettings, socialPlatforms, type AccountConfig, type Campaign, type DuplicateSetting, type Project } from '../../shared/domain/lead.ts';
import type { StoredApiKey } from '../../shared/domain/ports.ts';
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { pageTokenCipherFromEnvironment } from '../../shared/meta/token-cipher.ts';
import { applyMetaPages, parseMetaPages, type SeedMetaPage } from './seed-meta.ts';

export interface SeedApiKey {
  readonly key: string;
  readonly accountId: string;
  readonly active: boolean;
  /** Given, or derived from the key's hash, so applying the same file twice gives the same id. */
  readonly keyId: string;
  readonly options: Pick<StoredApiKey, 'label' | 'endpoints' | 'origins' | 'expiresAt'>;
}

export interface Seed {
  readonly accounts: readonly AccountConfig[];
  readonly apiKeys: readonly SeedApiKey[];
  /** Facebook pages the accounts connect (CONTRACT.md section 8). */
  readonly metaPages?: readonly SeedMetaPage[];
}

/** A seed file that breaks the format; `problems` names each one, with where it is. */
export class SeedError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[], source = 'seed') {
    super(`${source} is invalid: ${problems.join('; ')}`);
    this.name = 'SeedError';
    this.problems = problems;
  }
}

/** Limits of the request fields these ids and names are matched against (CONTRACT.md section 2). */
const ID_MAX = 100;
const SUB_SOURCE_MAX = 200;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);

/** Checks a parsed seed file; throws a SeedError listing every problem. */
export const parseSeed = (input: unknown, source = 'seed'): Seed => {
  const problems: string[] = [];
  const problem = (text: string) => void problems.push(text);

  const fields = (object: Json, at: string, allowed: readonly string[]) => {
    for (const key of Object.keys(object)) if (!allowed.includes(key)) problem(`${at}: unknown field ${show(key)}`);
  };

  /** An id or name as requests carry it: a non-empty string with no surrounding spaces. */
  const text = (value: unknown, at: string, max: number, { noHash = false } = {}): string | undefined => {
    if (typeof value !== 'string' || value.trim() === '') return void problem(`${at} must be a non-empty string`);
    if (value !== value.trim()) return void problem(`${at} ${show(value)} has leading or trailing spaces (requests are trimmed, so it could never match)`);
    if (value.length > max) return void problem(`${at} ${show(value)} is longer than ${max} characters`);
    if (noHash && value.includes('#')) return void problem(`${at} ${show(value)} must not contain "#"`);
    return value;
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
  const metaPages: SeedMetaPage[] = [];
  const seenPages = new Map<string, string>();
  list(input.accounts, 'accounts').forEach((raw, i) => {
    let at = `accounts[${i}]`;
    if (!isObject(raw)) return problem(`${at} must be an object`);
    const id = text(raw.id, `${at}.id`, ID_MAX, { noHash: true });
    if (id !== undefined) {
      at = `account ${show(id)}`;
      if (accountIds.has(id)) problem(`account id ${show(id)} appears more than once`);
      accountIds.add(id);
    }
    fields(raw, at, ['id', 'name', 'duplicateHandling', 'projects', 'subSources', 'metaPages']);
    const name = text(raw.name, `${at}.name`, 200);
    const duplicateSetting = raw.duplicateHandling ?? 'ignore';
    if (!duplicateSettings.includes(duplicateSetting as DuplicateSetting)) {
      problem(`${at}.duplicateHandling must be one of ${duplicateSettings.join(', ')}, not ${show(raw.duplicateHandling)}`);
    }

    const projects = new Map<string, Project>();
    const campaigns = new Map<string, Campaign>();
    list(raw.projects, `${at}.projects`).forEach((rawProject, j) => {
      let projectAt = `${at}.projects[${j}]`;
      if (!isObject(rawProject)) return problem(`${projectAt} must be an object`);
      const projectId = text(rawProject.id, `${projectAt}.id`, ID_MAX);
      if (projectId !== undefined) {
        projectAt = `${at}, project ${show(projectId)}`;
        if (projects.has(projectId)) problem(`${at}: project id ${show(projectId)} appears more than once`);
        projects.set(projectId, { id: projectId, name: rawProject.name === undefined ? projectId : (text(rawProject.name, `${projectAt}.name`, 200) ?? projectId) });
      }
      fields(rawProject, projectAt, ['id', 'name', 'campaigns']);
      list(rawProject.campaigns, `${projectAt}.campaigns`).forEach((rawCampaign, k) => {
        const campaignAt = `${projectAt}.campaigns[${k}]`;
        if (!isObject(rawCampaign)) return problem(`${campaignAt} must be an object`);
        fields(rawCampaign, campaignAt, ['id', 'name']);
        const campaignId = text(rawCampaign.id, `${campaignAt}.id`, ID_MAX);
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
        const campaignName = rawCampaign.name === undefined ? campaignId : (text(rawCampaign.name, `${campaignAt}.name`, 200) ?? campaignId);
        campaigns.set(campaignId, { id: campaignId, projectId, name: campaignName });
      });
    });

    const websiteSubSources = new Set<string>();
    const socialSubSources = new Set<string>();
    const subSources = raw.subSources ?? {};
    if (!isObject(subSources)) {
      problem(`${at}.subSources must be an object with "website" and "social" lists`);
    } else {
      fields(subSources, `${at}.subSources`, ['website', 'social']);
      list(subSources.website, `${at}.subSources.website`).forEach((value, j) => {
        const subSource = text(value, `${at}.subSources.website[${j}]`, SUB_SOURCE_MAX);
        if (subSource === undefined) return;
        if (websiteSubSources.has(subSource)) problem(`${at}: website sub source ${show(subSource)} appears more than once`);
        websiteSubSources.add(subSource);
      });
      list(subSources.social, `${at}.subSources.social`).forEach((value) => {
        if (!(socialPlatforms as readonly unknown[]).includes(value)) {
          return problem(`${at}: social sub source ${show(value)} is not one of ${socialPlatforms.join(', ')}`);
        }
        if (socialSubSources.has(value as string)) problem(`${at}: social sub source ${show(value)} appears more than once`);
        socialSubSources.add(value as string);
      });
    }

    metaPages.push(...parseMetaPages(raw.metaPages, { accountId: id, at, projects, campaigns, problem, seenPages }));

    if (id !== undefined && name !== undefined) {
      accounts.push({
        id,
        name,
        duplicateSetting: duplicateSetting as DuplicateSetting,
        projects,
        campaigns,
        websiteSubSources,
        socialSubSources,
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
    const accountId = text(raw.accountId, `${at}.accountId`, ID_MAX, { noHash: true });
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
        { allowPastExpiry: true },
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
  return { accounts, apiKeys, ...(metaPages.length > 0 && { metaPages }) };
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
 * Writes a checked seed: each account with its projects and campaigns, then the keys, as hashes only.
 * Throws KeyIdTakenError when a key id of the file belongs to another key already stored.
 */
export const applySeed = async (repository: DynamoDbRepository, seed: Seed): Promise<void> => {
  for (const account of seed.accounts) await repository.accounts.saveAccount(account);
  const createdAt = new Date().toISOString();
  for (const { key, accountId, active, keyId, options } of seed.apiKeys) {
    await repository.keys.putKey(hashApiKey(key), { keyId, accountId, active, graceEndsAt: null, createdAt, ...options });
  }
  if (seed.metaPages?.length) await applyMetaPages(repository, seed.metaPages, pageTokenCipherFromEnvironment());
};

/**
 * The key the local run's banner shows (CONTRACT.md section 1 allows it): the seed's first active key
 * whose account the seed defines, with that account.
 */
export const demoKeyOf = (seed: Seed): { key: string; account: AccountConfig } | undefined => {
  for (const apiKey of seed.apiKeys) {
    const account = seed.accounts.find((a) => a.id === apiKey.accountId);
    if (apiKey.active && account) return { key: apiKey.key, account };
  }
  return undefined;
};
