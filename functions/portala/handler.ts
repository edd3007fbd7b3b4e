import { portalAEndpoint } from '../../shared/endpoints.ts';
import { leadHandler } from '../../shared/http/lead-handler.ts';
import { runtimeFromEnvironment } from '../../shared/runtime.ts';

/** POST /api/portala-lead-create: listing portal A. */
export const handler = leadHandler(portalAEndpoint, runtimeFromEnvironment());
