/**
 * A lead source's own member of a seed file's accounts (`metaPages`, `googleForms`, `callNumbers`): the
 * module its descriptor's `seed.module` names exports one as its default, and the seed
 * (scripts/local/seed.ts) reads and writes the member through it alone, so the seed names no source.
 */
import type { Campaign, Project } from '../domain/lead.ts';
import type { DynamoDbRepository } from '../dynamodb/repository.ts';

/** Where in a seed file an account's member is read, and what the account defines. */
export interface SeedAccountContext {
  /** The account's id; undefined when the file's is invalid (its member is still checked, and kept out). */
  readonly accountId: string | undefined;
  /** The account in an error (`account "acc-demo"`), before the member's own name. */
  readonly at: string;
  readonly projects: ReadonlyMap<string, Project>;
  readonly campaigns: ReadonlyMap<string, Campaign>;
  /** Reports a problem of the file; the seed throws them all together, before anything is written. */
  readonly problem: (text: string) => void;
}

export interface SeedMember<Entry> {
  /**
   * A reader for one file: called once per file, it returns what reads the member of each account in
   * turn (so it can refuse what two accounts both claim), and gives the entries to write.
   */
  readonly reader: () => (raw: unknown, context: SeedAccountContext) => Entry[];
  /** Writes the file's entries, idempotently (a seed applied twice changes nothing). */
  readonly apply: (repository: DynamoDbRepository, entries: readonly Entry[]) => Promise<void>;
}

const show = (value: unknown) => JSON.stringify(value);

/**
 * What is wrong with where a seed's lead form or number sends its leads: the project must be one of
 * the account's, the campaign one of that project's.
 */
export const formTargetProblem = (
  formAt: string,
  projectID: unknown,
  campaignID: unknown,
  projects: ReadonlyMap<string, Project>,
  campaigns: ReadonlyMap<string, Campaign>,
): string | undefined => {
  if (typeof projectID !== 'string' || !projects.has(projectID)) return `${formAt}.projectID ${show(projectID)} is not a project of the account`;
  if (typeof campaignID !== 'string' || campaigns.get(campaignID)?.projectId !== projectID) return `${formAt}.campaignID ${show(campaignID)} is not a campaign of project ${show(projectID)}`;
  return undefined;
};
