/**
 * The `callNumbers` of a seed account (CONTRACT.md section 13):
 *   "callNumbers": [{"number": "...", "projectID": "...", "campaignID": "..."}]
 * Written through the numbers' domain module (shared/calls/numbers.ts): a number is added when
 * missing and moved when connected; one removed since is never connected back (section 14).
 */
import { CALL_NUMBER_CONNECTION, callNumberOf, seedCallNumber } from './numbers.ts';
import type { DynamoDbRepository } from '../dynamodb/repository.ts';
import { formTargetProblem, type SeedAccountContext, type SeedMember } from '../sources/seed-member.ts';

export interface SeedCallNumber {
  readonly accountId: string;
  readonly number: string;
  readonly projectId: string;
  readonly campaignId: string;
}

export type CallSeedContext = SeedAccountContext;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);

export const parseCallNumbers = (raw: unknown, { accountId, at, projects, campaigns, problem }: CallSeedContext): SeedCallNumber[] => {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problem(`${at}.callNumbers must be an array`);
    return [];
  }
  const numbers: SeedCallNumber[] = [];
  const seen = new Set<string>();
  raw.forEach((rawNumber, i) => {
    const numberAt = `${at}.callNumbers[${i}]`;
    if (!isObject(rawNumber)) return problem(`${numberAt} must be an object`);
    for (const name of Object.keys(rawNumber)) if (!['number', 'projectID', 'campaignID'].includes(name)) problem(`${numberAt}: unknown field ${show(name)}`);
    const { number, projectID, campaignID } = rawNumber;
    const digits = typeof number === 'string' ? callNumberOf(number) : undefined;
    if (digits === undefined) return problem(`${numberAt}.number must be a phone number of at least 10 digits, as a string`);
    if (seen.has(digits)) problem(`${at}: call number ${digits} appears more than once`);
    seen.add(digits);
    const target = formTargetProblem(numberAt, projectID, campaignID, projects, campaigns);
    if (target) return problem(target);
    if (accountId !== undefined) numbers.push({ accountId, number: digits, projectId: projectID as string, campaignId: campaignID as string });
  });
  return numbers;
};

/** Connects each number, never one removed since a seed connected it. */
export const applyCallNumbers = async (repository: DynamoDbRepository, numbers: readonly SeedCallNumber[]): Promise<void> => {
  const deps = { numbers: repository.connections(CALL_NUMBER_CONNECTION), accounts: repository.accounts };
  for (const number of numbers) await seedCallNumber(deps, number);
};

/** The seed's `callNumbers` (shared/calls/source.ts `seed`): two accounts may each connect a number. */
const callNumbersMember: SeedMember<SeedCallNumber> = {
  reader: () => parseCallNumbers,
  apply: applyCallNumbers,
};
export default callNumbersMember;
