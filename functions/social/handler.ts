import { socialEndpoint } from '../../shared/endpoints.ts';
import { leadHandler } from '../../shared/http/lead-handler.ts';
import { primedRuntimeFromEnvironment } from '../../shared/runtime.ts';

/** POST /api/social-lead-create: social ad platforms' lead connectors. */
// Awaited at init: Lambda runs it at full CPU before the first request (shared/runtime.ts).
export const handler = leadHandler(socialEndpoint, await primedRuntimeFromEnvironment());
