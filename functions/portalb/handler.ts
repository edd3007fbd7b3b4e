import { portalBEndpoint } from '../../shared/endpoints.ts';
import { leadHandler } from '../../shared/http/lead-handler.ts';
import { runtimeFromEnvironment } from '../../shared/runtime.ts';

/** POST /api/portalb-lead-create: listing portal B. */
export const handler = leadHandler(portalBEndpoint, runtimeFromEnvironment());
