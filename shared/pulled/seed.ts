/**
 * The `portals` of a seed account (CONTRACT.md section 17):
 *   "portals": [{"portal", "login", "credential", "projectID", "campaignID", "map": {"<portal project id>": {"projectID", "campaignID"}}, "feed"}]
 * Credentials are plain text in a local seed file only; they are sealed before they are stored, never
 * echoed in an error, and, as section 14 says for keys, a seed never changes a stored credential nor
 * connects again a login that was removed. A login belongs to one account of the file.
 */
import type { DynamoDbRepository } from '../dynamodb/repository.ts';
import { DynamoDbPortalLoginStore } from '../dynamodb/portal-logins.ts';
import { formTargetProblem, type SeedMember } from '../sources/seed-member.ts';
import { portals } from '../portals/registry.ts';
import type { MapTarget } from './logins.ts';
import { portalCredentialCipher } from './settings.ts';
import { portalLoginId } from './wire-names.ts';

export interface SeedPortalLogin {
  readonly accountId: string;
  readonly portal: string;
  readonly login: string;
  readonly credential: string;
  readonly projectId: string;
  readonly campaignId: string;
  readonly map: Readonly<Record<string, MapTarget>>;
  readonly feed?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);
const FIELDS = ['portal', 'login', 'credential', 'projectID', 'campaignID', 'map', 'feed'];

const portalLoginsMember: SeedMember<SeedPortalLogin> = {
  reader: () => {
    const seen = new Set<string>();
    return (raw, { accountId, at, projects, campaigns, problem }) => {
      if (raw === undefined) return [];
      if (!Array.isArray(raw)) return problem(`${at}.portals must be an array`), [];
      const entries: SeedPortalLogin[] = [];
      raw.forEach((entry, i) => {
        const where = `${at}.portals[${i}]`;
        if (!isObject(entry)) return problem(`${where} must be an object`);
        for (const key of Object.keys(entry)) if (!FIELDS.includes(key)) problem(`${where}: unknown field ${show(key)}`);
        const portal = portals.find(({ source }) => source.name === entry.portal)?.source;
        if (!portal) return problem(`${where}.portal must be one of ${portals.map(({ source }) => source.name).join(', ')}`);
        if (typeof entry.login !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(entry.login) || entry.login.includes('#')) return problem(`${where}.login must be 1 to 200 visible characters without #`);
        if (typeof entry.credential !== 'string' || entry.credential.trim() === '') return problem(`${where}.credential must be a non-empty string`);
        const id = portalLoginId(portal.name, entry.login);
        if (seen.has(id)) problem(`${portal.name} login ${show(entry.login)} appears more than once (a login belongs to one account)`);
        seen.add(id);
        const target = formTargetProblem(where, entry.projectID, entry.campaignID, projects, campaigns);
        if (target) return problem(target);
        const map: Record<string, MapTarget> = {};
        if (entry.map !== undefined) {
          if (!isObject(entry.map)) return problem(`${where}.map must be an object`);
          for (const [projectKey, mapped] of Object.entries(entry.map)) {
            const to = isObject(mapped) ? mapped : {};
            const problemOf = formTargetProblem(`${where}.map.${projectKey}`, to.projectID, to.campaignID, projects, campaigns);
            if (problemOf) problem(problemOf);
            else map[projectKey] = { projectId: to.projectID as string, campaignId: to.campaignID as string };
          }
        }
        if (entry.feed !== undefined && !(portal.feeds ?? []).includes(entry.feed as string)) return problem(`${where}.feed must be one of ${(portal.feeds ?? []).join(', ') || '(none)'}`);
        if (accountId === undefined) return;
        entries.push({
          accountId,
          portal: portal.name,
          login: entry.login,
          credential: entry.credential.trim(),
          projectId: entry.projectID as string,
          campaignId: entry.campaignID as string,
          map,
          ...(typeof entry.feed === 'string' ? { feed: entry.feed } : portal.feeds ? { feed: portal.feeds[0]! } : {}),
        });
      });
      return entries;
    };
  },
  apply: async (repository: DynamoDbRepository, entries) => {
    const store = new DynamoDbPortalLoginStore(repository.db, repository.tables.config);
    const cipher = portalCredentialCipher(process.env);
    for (const entry of entries) {
      const stored = await store.find(entry.portal, entry.login);
      if (stored && stored.accountId !== entry.accountId) throw new Error(`Portal login ${entry.login} is connected to another account`);
      // Connected: its project, campaign and map as the seed says, never its credential.
      if (stored) {
        await store.replace(stored, { projectId: entry.projectId, campaignId: entry.campaignId, map: entry.map });
        continue;
      }
      // Removed: a seed never connects it again.
      if (await store.wasRemoved(entry.portal, entry.login)) continue;
      await store.insert({
        portal: entry.portal,
        login: entry.login,
        accountId: entry.accountId,
        projectId: entry.projectId,
        campaignId: entry.campaignId,
        map: entry.map,
        ...(entry.feed !== undefined && { feed: entry.feed }),
        sealedCredential: await cipher.seal(portalLoginId(entry.portal, entry.login), entry.credential),
        connectedAt: new Date().toISOString(),
        enquiriesStored: 0,
      });
    }
  },
};
export default portalLoginsMember;
