/**
 * Meta Lead Ads' names that its worker reads at run time (its platform id). Apart from the descriptor
 * (source.ts), which only the stack and the tools read: esbuild keeps a whole object literal that one
 * bundle reads a field of.
 */

/** What the worker's function reads of its declaration. */
export const metaWireNames = {
  name: 'meta',
  leadSource: 'social',
  platformId: { field: 'meta_leadgen_id', idempotencyPrefix: 'meta-leadgen' },
  acceptance: { status: 200, message: 'Notification received', withLead: false },
} as const;
