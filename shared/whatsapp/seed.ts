/**
 * The `whatsappNumbers` of a seed account (CONTRACT.md section 15):
 *   "whatsappNumbers": [{"phoneNumberId": "...", "projectID": "...", "campaignID": "..."}]
 * Written through the numbers' domain module (numbers.ts): a number is added when missing and moved
 * when the account's; one removed since is never connected back (section 14); one number belongs to
 * one account, so two accounts of a file naming it are refused before anything is written.
 */
import type { DynamoDbRepository } from '../dynamodb/repository.ts';
import { formTargetProblem, type SeedAccountContext, type SeedMember } from '../sources/seed-member.ts';
import { isPhoneNumberId, seedWhatsAppNumber, WHATSAPP_NUMBER_CONNECTION } from './numbers.ts';

export interface SeedWhatsAppNumber {
  readonly accountId: string;
  readonly phoneNumberId: string;
  readonly projectId: string;
  readonly campaignId: string;
}

export interface WhatsAppSeedContext extends SeedAccountContext {
  /** Number ids already taken by an account earlier in the file. */
  readonly seenNumbers: Set<string>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);

export const parseWhatsAppNumbers = (raw: unknown, { accountId, at, projects, campaigns, problem, seenNumbers }: WhatsAppSeedContext): SeedWhatsAppNumber[] => {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problem(`${at}.whatsappNumbers must be an array`);
    return [];
  }
  const numbers: SeedWhatsAppNumber[] = [];
  raw.forEach((rawNumber, i) => {
    const numberAt = `${at}.whatsappNumbers[${i}]`;
    if (!isObject(rawNumber)) return problem(`${numberAt} must be an object`);
    for (const name of Object.keys(rawNumber)) if (!['phoneNumberId', 'projectID', 'campaignID'].includes(name)) problem(`${numberAt}: unknown field ${show(name)}`);
    const { phoneNumberId, projectID, campaignID } = rawNumber;
    if (typeof phoneNumberId !== 'string' || !isPhoneNumberId(phoneNumberId)) return problem(`${numberAt}.phoneNumberId must be Meta's phone number id (1 to 200 digits, as a string)`);
    if (seenNumbers.has(phoneNumberId)) problem(`WhatsApp number ${show(phoneNumberId)} appears more than once (a number belongs to one account)`);
    seenNumbers.add(phoneNumberId);
    const target = formTargetProblem(numberAt, projectID, campaignID, projects, campaigns);
    if (target) return problem(target);
    if (accountId !== undefined) numbers.push({ accountId, phoneNumberId, projectId: projectID as string, campaignId: campaignID as string });
  });
  return numbers;
};

/** Connects each number, never one removed since a seed connected it. */
export const applyWhatsAppNumbers = async (repository: DynamoDbRepository, numbers: readonly SeedWhatsAppNumber[]): Promise<void> => {
  const deps = { numbers: repository.connections(WHATSAPP_NUMBER_CONNECTION), accounts: repository.accounts };
  for (const number of numbers) await seedWhatsAppNumber(deps, number);
};

/** The seed's `whatsappNumbers` (shared/whatsapp/source.ts `seed`): a number belongs to one account of the file. */
const whatsappNumbersMember: SeedMember<SeedWhatsAppNumber> = {
  reader: () => {
    const seenNumbers = new Set<string>();
    return (raw, context) => parseWhatsAppNumbers(raw, { ...context, seenNumbers });
  },
  apply: applyWhatsAppNumbers,
};
export default whatsappNumbersMember;
