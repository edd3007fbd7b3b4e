/**
 * The `googleForms` of a seed account (CONTRACT.md section 10):
 *   "googleForms": [{"formId": "...", "key": "...", "projectID": "...", "campaignID": "..."}]
 * The key is plain text in a local seed file only; only its hash is stored, and it is never echoed in
 * an error. Written through the forms' domain module (shared/google/forms.ts), idempotently.
 */
import { isGoogleFormId, seedGoogleForm } from './forms.ts';
import type { DynamoDbRepository } from '../dynamodb/repository.ts';
import { formTargetProblem, type SeedAccountContext, type SeedMember } from '../sources/seed-member.ts';

export interface SeedGoogleForm {
  readonly accountId: string;
  readonly formId: string;
  readonly key: string;
  readonly projectId: string;
  readonly campaignId: string;
}

export interface GoogleSeedContext extends SeedAccountContext {
  /** Form ids already taken by an account earlier in the file. */
  readonly seenForms: Set<string>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);

export const parseGoogleForms = (raw: unknown, { accountId, at, projects, campaigns, problem, seenForms }: GoogleSeedContext): SeedGoogleForm[] => {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problem(`${at}.googleForms must be an array`);
    return [];
  }
  const forms: SeedGoogleForm[] = [];
  raw.forEach((rawForm, i) => {
    const formAt = `${at}.googleForms[${i}]`;
    if (!isObject(rawForm)) return problem(`${formAt} must be an object`);
    for (const name of Object.keys(rawForm)) if (!['formId', 'key', 'projectID', 'campaignID'].includes(name)) problem(`${formAt}: unknown field ${show(name)}`);
    const { formId, key, projectID, campaignID } = rawForm;
    if (typeof formId !== 'string' || !isGoogleFormId(formId)) return problem(`${formAt}.formId must be a Google Ads form id (digits, as a string)`);
    if (seenForms.has(formId)) problem(`Google form ${show(formId)} appears more than once (a form belongs to one account)`);
    seenForms.add(formId);
    if (typeof key !== 'string' || key.trim() === '' || key !== key.trim()) return problem(`${formAt}.key must be a non-empty string without surrounding spaces`);
    const target = formTargetProblem(formAt, projectID, campaignID, projects, campaigns);
    if (target) return problem(target);
    if (accountId !== undefined) forms.push({ accountId, formId, key, projectId: projectID as string, campaignId: campaignID as string });
  });
  return forms;
};

/** Connects each form with the key the seed names. */
export const applyGoogleForms = async (repository: DynamoDbRepository, forms: readonly SeedGoogleForm[]): Promise<void> => {
  const deps = { forms: repository.googleForms, accounts: repository.accounts };
  for (const form of forms) await seedGoogleForm(deps, form);
};

/** The seed's `googleForms` (shared/google/source.ts `seed`): a form belongs to one account of the file. */
const googleFormsMember: SeedMember<SeedGoogleForm> = {
  reader: () => {
    const seenForms = new Set<string>();
    return (raw, context) => parseGoogleForms(raw, { ...context, seenForms });
  },
  apply: applyGoogleForms,
};
export default googleFormsMember;
