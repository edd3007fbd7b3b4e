/**
 * What the retention sweep (CONTRACT.md section 18, shared/domain/retention-sweep.ts) needs from storage:
 * the accounts that may have anything to sweep, what of theirs has aged out (found by age, never by a
 * scan), and each item's erasure.
 */

/** An item the sweep found, as the store names it: handed back to the store, never read by the domain. */
export interface AgedItem {
  readonly pk: string;
  readonly sk: string;
}

export interface RetentionStore {
  /** The account's leads created before `before` (UTC ISO), oldest first per partition of the store. */
  agedLeads(accountId: string, before: string): AsyncIterable<AgedItem>;
  /**
   * Erases the lead as a person's erasure erases a lead of theirs (section 12), with reason `retention`;
   * false, and nothing written, when it is gone already or is not older than `before`.
   */
  eraseAgedLead(accountId: string, lead: AgedItem, before: string): Promise<boolean>;
  /** The account's rejection and quarantine records made before `before`. */
  agedRejections(accountId: string, before: string): AsyncIterable<AgedItem>;
  /** Erases the record (its lookup items with it); false when it is gone already. */
  eraseAgedRejection(accountId: string, record: AgedItem): Promise<boolean>;
}

/** The accounts whose retention was ever set to something other than the defaults: the only ones a sweep visits. */
export interface RetentionAccounts {
  accountsWithRetention(): Promise<string[]>;
}
