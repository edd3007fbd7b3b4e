/**
 * A kind of connection's member of a seed file's accounts (CONTRACT.md section 14), made of its
 * declaration (connection-kind.ts) alone: `"googleForms": [{"formId", "key", "projectID", "campaignID"}]`,
 * `"callNumbers": [{"number", "projectID", "campaignID"}]`. A keyed kind's key is plain text in a local
 * seed only; only its hash is stored, and it is never echoed in an error. Written through the one
 * connection lifecycle (shared/domain/connection-admin.ts seedConnection): added when missing, moved when
 * connected, never connected back once removed.
 */
import { connectionIdOf, filled, seedConnection } from '../domain/connection-admin.ts';
import type { DynamoDbRepository } from '../dynamodb/repository.ts';
import type { ConnectionKindDeclaration } from './connection-kind.ts';
import { formTargetProblem, type SeedAccountContext, type SeedMember } from './seed-member.ts';

/** One entry: its account, its id (under the kind's field, `formId`, `number`), its key for a keyed kind, where its leads go. */
export type SeedConnectionEntry = Readonly<Record<string, string>> & { readonly accountId: string; readonly projectId: string; readonly campaignId: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);

export const connectionSeedMember = (kind: ConnectionKindDeclaration): SeedMember<SeedConnectionEntry> => {
  const { member, idField, keyField, invalidId, repeated } = kind.seed;
  const fields = [idField, ...(keyField !== undefined ? [keyField] : []), 'projectID', 'campaignID'];
  return {
    reader: () => {
      // An id one account's whatever the account (platform-wide) appears once in the file; else once in each account.
      const seenInFile = new Set<string>();
      return (raw, { accountId, at, projects, campaigns, problem }: SeedAccountContext) => {
        if (raw === undefined) return [];
        if (!Array.isArray(raw)) {
          problem(`${at}.${member} must be an array`);
          return [];
        }
        const seen = kind.shape.scope === 'platform' ? seenInFile : new Set<string>();
        const entries: SeedConnectionEntry[] = [];
        raw.forEach((rawEntry, i) => {
          const entryAt = `${at}.${member}[${i}]`;
          if (!isObject(rawEntry)) return problem(`${entryAt} must be an object`);
          for (const name of Object.keys(rawEntry)) if (!fields.includes(name)) problem(`${entryAt}: unknown field ${show(name)}`);
          const { projectID, campaignID } = rawEntry;
          const given = rawEntry[idField];
          const id = typeof given === 'string' ? connectionIdOf(kind, given) : undefined;
          if (id === undefined) return problem(`${entryAt}.${idField} ${invalidId}`);
          if (seen.has(id)) problem(filled(repeated, { at, id, value: show(id) }));
          seen.add(id);
          const key = keyField === undefined ? undefined : rawEntry[keyField];
          if (keyField !== undefined && (typeof key !== 'string' || key.trim() === '' || key !== key.trim())) {
            return problem(`${entryAt}.${keyField} must be a non-empty string without surrounding spaces`);
          }
          const target = formTargetProblem(entryAt, projectID, campaignID, projects, campaigns);
          if (target) return problem(target);
          if (accountId !== undefined) {
            entries.push({ accountId, [idField]: id, ...(keyField !== undefined && { [keyField]: key as string }), projectId: projectID as string, campaignId: campaignID as string });
          }
        });
        return entries;
      };
    },
    apply: async (repository: DynamoDbRepository, entries) => {
      const deps = { connections: repository.connections(kind), accounts: repository.accounts };
      for (const entry of entries) {
        await seedConnection(kind, deps, {
          accountId: entry.accountId,
          id: entry[idField]!,
          ...(keyField !== undefined && { key: entry[keyField]! }),
          projectId: entry.projectId,
          campaignId: entry.campaignId,
        });
      }
    },
  };
};
