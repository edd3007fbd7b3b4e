/**
 * What a person's access and erasure (CONTRACT.md section 12) need from storage.
 */
import type { LeadRecord, PersonHandle } from '../lead.ts';
import type { StoredRejection } from './rejections.ts';

/** What a person's data is, as access finds it (CONTRACT.md section 12). */
export interface PersonRecords {
  readonly leads: readonly LeadRecord[];
  readonly rejections: readonly StoredRejection[];
}

/** How many leads and records an access returned (CONTRACT.md section 18's audit count). */
export const countOfRecords = (found: PersonRecords): number => found.leads.length + found.rejections.length;

/** What an erasure did: leads erased whole, rejection records erased, leads that lost only their alternate number. */
export interface ErasureCounts {
  readonly leads: number;
  readonly rejections: number;
  readonly alternate_numbers: number;
}

/** How many leads and records an erasure erased or changed (CONTRACT.md section 18's audit count). */
export const countOfErased = (counts: ErasureCounts): number => counts.leads + counts.rejections + counts.alternate_numbers;

/**
 * A person's items within one account, found through keyed-hash lookup items written with each lead
 * and rejection record: never a scan of the account's leads or log.
 */
export interface PersonDataStore {
  findPerson(accountId: string, person: PersonHandle): Promise<PersonRecords>;
  /**
   * Erases every item of the person in the account. Safe to run again after a failure: what was
   * erased stays erased, the rest is erased by the next run, and the counts answered are those of the
   * whole erasure (a journal item carries them between runs); once complete, a new erasure finds zeros.
   */
  erasePerson(accountId: string, person: PersonHandle): Promise<ErasureCounts>;
}
