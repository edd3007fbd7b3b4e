import { websiteEndpoint } from '../../shared/endpoints.ts';
import { leadHandler } from '../../shared/http/lead-handler.ts';
import { primedRuntimeFromEnvironment } from '../../shared/runtime.ts';

/** POST /api/website-lead-create: website and landing-page forms. */
// Awaited at init: Lambda runs it at full CPU before the first request (shared/runtime.ts).
export const handler = leadHandler(websiteEndpoint, await primedRuntimeFromEnvironment());
