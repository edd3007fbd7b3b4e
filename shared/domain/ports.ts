/**
 * What the domain needs from storage. The DynamoDB repository implements these; the domain never
 * sees a table, a key or an attribute value.
 */
import type { AccountConfig, ApiKeyGrant, LeadRecord } from './lead.ts';

export interface AccountConfigReader {
  /** The grant of an API key, looked up by the SHA-256 hex digest of the key. */
  findApiKey(keyHash: string): Promise<ApiKeyGrant | undefined>;
  loadAccount(accountId: string): Promise<AccountConfig | undefined>;
}

export type OriginalLeadOutcome =
  | { readonly kind: 'stored' }
  /** The project already has a lead with this mobile number; nothing was stored. */
  | { readonly kind: 'duplicate'; readonly originalLeadId: string };

export interface LeadStore {
  /**
   * Stores the lead as the original of its (account, project, mobile) in one atomic write, or
   * stores nothing and names the original that exists already.
   */
  insertOriginal(accountId: string, lead: LeadRecord): Promise<OriginalLeadOutcome>;
  /** Stores a repeated lead (the original exists already). */
  insertRepeat(accountId: string, lead: LeadRecord): Promise<void>;
}
