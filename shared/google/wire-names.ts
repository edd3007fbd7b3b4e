/**
 * Google Ads lead forms' names that its functions read at run time: the admin function (its admin
 * routes) and its own (its name, its leads' source, its platform id, its answer). Apart from the
 * descriptor (source.ts), which only the stack and the tools read: esbuild keeps a whole object literal
 * that one bundle reads a field of.
 */
import type { ConnectionKeyDeclaration } from '../sources/connection-kind.ts';

/** What the webhook's function reads of its declaration. */
export const googleAdsWireNames = {
  name: 'google_ads',
  leadSource: 'google_ads',
  platformId: { field: 'google_lead_id', idempotencyPrefix: 'google-lead' },
  acceptance: { status: 200, message: 'Lead received', withLead: false },
} as const;

/** Its forms in the connection store (shared/sources/connection-kind.ts): the names stored today. */
export const googleFormConnectionKey = {
  kind: 'google_form',
  shape: { scope: 'platform', partitionPrefix: 'GOOGLEFORM#', itemSortKey: 'GOOGLEFORM', listingPrefix: 'GOOGLEFORMS#', listingSortPrefix: 'FORM#', idAttribute: 'form_id' },
  // Google's form ids are 64-bit integers: their decimal digits, with no leading zero.
  id: { rule: 'pattern', pattern: '^(0|[1-9]\\d{0,19})$' },
} as const satisfies ConnectionKeyDeclaration;
