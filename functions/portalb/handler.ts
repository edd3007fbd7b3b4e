import { portalBEndpoint } from '../../shared/endpoints.ts';
import { leadHandler } from '../../shared/http/lead-handler.ts';
import { primedRuntimeFromEnvironment } from '../../shared/runtime.ts';

/** POST /api/portalb-lead-create: listing portal B. */
// Awaited at init: Lambda runs it at full CPU before the first request (shared/runtime.ts).
export const handler = leadHandler(portalBEndpoint, await primedRuntimeFromEnvironment());
