/**
 * A person's data within one account (CONTRACT.md section 12): who a person is for access and erasure
 * (a normalised mobile number, or an e-mail compared case-insensitively), the keyed hashes that find
 * their items without reading the account's leads or log, and the two requests an account answers for
 * them. The store (shared/dynamodb/people.ts) keeps the lookup items; this module says what they are
 * derived from. docs/data-model.md, "A person's data".
 */
import { createHmac } from 'node:crypto';
import * as v from 'valibot';
import { commonLeadFields } from '../schemas/lead-fields.ts';
import { AccountNotFoundError, InvalidPersonError } from './errors.ts';
import type { LeadRecord, PersonHandle, PersonIdentifiers } from './lead.ts';
import type { AccountReader } from './ports/keys-and-accounts.ts';
import type { ErasureCounts, PersonDataStore, PersonRecords } from './ports/people.ts';
import { normaliseIndianMobile } from '../schemas/mobile.ts';
import { maskMobile } from '../log.ts';
import { retentionOf } from './account-admin.ts';
import { DEFAULT_RETENTION_DAY_SECONDS, retainedUntil } from './retention.ts';

/** A lead as access answers it: with when retention will erase it (CONTRACT.md section 18), or null. */
export type RetainedLead = LeadRecord & { readonly retained_until: string | null };

/** What access answers: the person's records, each lead with its `retained_until`. */
export interface PersonAccess extends PersonRecords {
  readonly leads: readonly RetainedLead[];
}

// Declared with the lead's other words (lead.ts), where the ports can name them without a circle.
export type { PersonHandle, PersonIdentifiers };

/** How an item names a person: its mobile, its alternate number, or its e-mail. */
export type PersonRole = 'mobile' | 'alternate_number' | 'email';

/** One way an item names a person: the role, and the handle it is found by. */
export interface PersonReference {
  readonly role: PersonRole;
  readonly handle: PersonHandle;
}

/** E-mails are compared case-insensitively: one lower-cased, trimmed form is hashed and compared. */
export const emailHandle = (email: string): PersonHandle => ({ kind: 'email', value: email.trim().toLowerCase() });

/** Every way a stored lead names a person (at most one per role), in role order. */
export const referencesOfLead = (lead: Pick<LeadRecord, 'mobile_number' | 'alternate_number' | 'email'>): PersonReference[] =>
  referencesOf({ mobile_number: lead.mobile_number, alternate_number: lead.alternate_number, email: lead.email });

/**
 * The references of what a submission carried: one per distinct handle (a refused submission may
 * repeat its mobile as its alternate number; it is found once by it, as its mobile).
 */
export const referencesOf = ({ mobile_number, alternate_number, email }: PersonIdentifiers): PersonReference[] => {
  const references: PersonReference[] = [];
  const add = (role: PersonRole, handle: PersonHandle) => {
    if (!references.some((r) => r.handle.kind === handle.kind && r.handle.value === handle.value)) references.push({ role, handle });
  };
  if (mobile_number) add('mobile', { kind: 'mobile', value: mobile_number });
  if (alternate_number) add('alternate_number', { kind: 'mobile', value: alternate_number });
  if (email) add('email', emailHandle(email));
  return references;
};

/**
 * The contact details of a submission that was refused, read as leniently as section 2 allows: what
 * normalises is kept, anything else is left out (a refused submission may carry an invalid mobile,
 * and then no one can name the person by it).
 */
export const identifiersOfSubmission = (fields: Readonly<Record<string, unknown>>): PersonIdentifiers | undefined => {
  const mobile = (value: unknown) => (typeof value === 'string' ? normaliseIndianMobile(value.trim()) : undefined);
  const email = typeof fields.email === 'string' && fields.email.trim() !== '' && fields.email.length <= 254 ? emailHandle(fields.email).value : undefined;
  const identifiers = { mobile_number: mobile(fields.mobile_number), alternate_number: mobile(fields.alternate_number), email };
  const kept = Object.fromEntries(Object.entries(identifiers).filter(([, value]) => value !== undefined)) as PersonIdentifiers;
  return Object.keys(kept).length > 0 ? kept : undefined;
};

/**
 * A record's trace of the mobile it was refused with: the last four digits of the person's mobile, and
 * only when that mobile is one of the record's person references, so the erasure that finds the person
 * by it erases the digits with the record. A number section 2 cannot read (a foreign caller, a
 * landline) names no one: nothing could ever erase a trace of it, so no digit of it is kept.
 */
export const mobileTraceOf = (person: PersonIdentifiers | undefined): { readonly mobile?: string } =>
  person?.mobile_number === undefined ? {} : { mobile: maskMobile(person.mobile_number) };

/**
 * Keyed hashes of handles (HMAC-SHA256 with the service's secret), the only form in which a mobile or
 * e-mail appears in a key: without the secret a lookup key cannot be tested against a guessed number.
 */
export interface PersonKeyring {
  digest(handle: PersonHandle): Promise<string>;
}

/** The keyring of a secret (Secrets Manager in AWS, a local secret for `npm start` and the tests). */
export const hmacKeyring = (secret: () => Promise<string>): PersonKeyring => {
  let key: Promise<string> | undefined;
  return {
    digest: async (handle) => {
      key ??= secret().catch((error: unknown) => {
        key = undefined;
        throw error;
      });
      return createHmac('sha256', await key).update(`${handle.kind}\n${handle.value}`, 'utf8').digest('hex');
    },
  };
};

const handleQuery = v.object({ mobile_number: v.optional(commonLeadFields.mobile_number), email: commonLeadFields.email });

/**
 * The person an admin request names: `mobile_number` (section 2's normalisation) or `email`, exactly
 * one of them. Anything else: 400 with section 2's message for the field.
 */
export const personHandleOf = (input: Readonly<Record<string, unknown>>): PersonHandle => {
  const trimmed = Object.fromEntries(
    (['mobile_number', 'email'] as const).flatMap((field) => {
      const value = typeof input[field] === 'number' ? String(input[field]) : input[field];
      const text = typeof value === 'string' ? value.trim() : value;
      return text === undefined || text === null || text === '' ? [] : [[field, text]];
    }),
  );
  if (trimmed.mobile_number === undefined && trimmed.email === undefined) {
    throw new InvalidPersonError({ mobile_number: ['mobile_number or email is required'] });
  }
  if (trimmed.mobile_number !== undefined && trimmed.email !== undefined) {
    throw new InvalidPersonError({ email: ['give mobile_number or email, not both'] });
  }
  const parsed = v.safeParse(handleQuery, trimmed);
  if (!parsed.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of parsed.issues) {
      const field = issue.path?.[0]?.key;
      if (typeof field === 'string') (errors[field] ??= []).push(issue.message);
    }
    throw new InvalidPersonError(errors);
  }
  return parsed.output.mobile_number !== undefined ? { kind: 'mobile', value: parsed.output.mobile_number } : emailHandle(parsed.output.email!);
};

/** The two requests an account answers for a person: access and erasure. */
export class PersonData {
  readonly #accounts: AccountReader;
  readonly #people: PersonDataStore;
  readonly #daySeconds: number;

  /** `daySeconds`: the length of a retention day (RETENTION_DAY_SECONDS under npm start), for `retained_until`. */
  constructor(accounts: AccountReader, people: PersonDataStore, daySeconds = DEFAULT_RETENTION_DAY_SECONDS) {
    this.#accounts = accounts;
    this.#people = people;
    this.#daySeconds = daySeconds;
  }

  /** Every lead and rejection record of the account that names the person; each lead with when retention will erase it. */
  async access(accountId: string, query: Readonly<Record<string, unknown>>): Promise<PersonAccess> {
    const person = personHandleOf(query);
    const { leadDays } = retentionOf(await this.#account(accountId));
    const found = await this.#people.findPerson(accountId, person);
    return { ...found, leads: found.leads.map((lead) => ({ ...lead, retained_until: retainedUntil(lead.created_at, leadDays, this.#daySeconds) })) };
  }

  /** Erases the person from the account; again, zeros. */
  async erase(accountId: string, body: Readonly<Record<string, unknown>>): Promise<ErasureCounts> {
    const person = personHandleOf(body);
    await this.#account(accountId);
    return this.#people.erasePerson(accountId, person);
  }

  async #account(accountId: string) {
    const account = await this.#accounts.loadAccount(accountId);
    if (!account) throw new AccountNotFoundError();
    return account;
  }
}
