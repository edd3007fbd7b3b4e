/**
 * Why a source's names appear in a file outside its folder, where moving them was impossible or not
 * yet done (a descriptor's `namedOutside`; test/sources/footprint.test.ts holds each entry to naming its
 * source, so the lists only shrink). Data for the tools: no function imports it.
 */
const byReader = 'a page for readers of every source (docs by reader): its words in code spans, by hand; to become generated from the registry as docs/sources/ pages are';

/** The docs pages written for readers of every source, each with what of a source it says. */
const pagesByReader = {
  'docs/data-model.md': `its stored items and their attributes: ${byReader}`,
  'docs/deployment.md': `its throttle and function settings (deployed names) and its stack outputs: ${byReader}`,
  'docs/reference.md': `its contract section (the contract's order for senders): ${byReader}`,
  'docs/reliability.md': `its guarantees: ${byReader}`,
  'docs/configuration.md': `its function's environment variables (deployed names): ${byReader}`,
  'docs/running-locally.md': `npm run invoke's names and its admin verbs, for a laptop: ${byReader}`,
  'docs/how-it-is-built.md': `its folder and handlers, for contributors: ${byReader}`,
  'docs/sending-leads.md': `its key's OpenAPI security scheme, for Swagger UI users: ${byReader}`,
  'docs/performance.md': `its benchmark's npm script: ${byReader}`,
} as const;

/** Those of the pages for readers of every source that name it. */
export const docsByReader = (...pages: readonly (keyof typeof pagesByReader)[]): Record<string, string> =>
  Object.fromEntries(pages.map((page) => [page, pagesByReader[page]]));

export const whyNamed = {
  seed: 'the demo seed (seed/demo.json, read by npm start): one file for every source, its member named by its connection kind or its seed member',
  decision: 'a record of a past decision (docs/decisions/), naming test files, not the source',
  guide: 'docs/adding-a-lead-source.md: the guide says what each kind of source declares by the source that declares it',
  /**
   * The Meta app (shared/meta-app.ts, its local secrets shared/meta-app-local.ts, its webhooks' OpenAPI
   * parts shared/meta-app-openapi.ts): the platform's app whose secret signs both Meta Lead Ads' and
   * WhatsApp's notifications. Its setting names (META_SECRET_ARN, META_APP_SECRET, META_VERIFY_TOKEN) are
   * deployed names, and a second source reads them: they cannot live in one source's folder without the
   * other importing it.
   */
  signingApp: "the Meta app both Meta Lead Ads and WhatsApp are signed by (its secrets' deployed names): shared by two sources, so in neither folder",
} as const;
