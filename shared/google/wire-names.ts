/**
 * Google Ads lead forms' names that its functions read at run time: the admin function (its admin
 * routes) and its own (its name, its leads' source, its platform id, its answer). Apart from the
 * descriptor (source.ts), which only the stack and the tools read: esbuild keeps a whole object literal
 * that one bundle reads a field of.
 */
import type { AdminRoute } from '../routes.ts';
import type { ConnectionKeyDeclaration } from '../sources/connection-kind.ts';

/** Its admin routes (the descriptor's `admin.routes`). */
export const googleFormAdminRoutes = [
  { method: 'PUT', path: '/admin/v1/accounts/{accountId}/google-forms/{formId}', operation: 'connectGoogleForm' },
  { method: 'GET', path: '/admin/v1/accounts/{accountId}/google-forms', operation: 'listGoogleForms' },
  { method: 'DELETE', path: '/admin/v1/accounts/{accountId}/google-forms/{formId}', operation: 'removeGoogleForm' },
  { method: 'POST', path: '/admin/v1/accounts/{accountId}/google-forms/{formId}/rotate-key', operation: 'rotateGoogleFormKey' },
] as const satisfies readonly AdminRoute[];

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
} as const satisfies ConnectionKeyDeclaration;
