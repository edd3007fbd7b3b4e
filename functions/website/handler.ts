import { websiteEndpoint } from '../../shared/endpoints.ts';
import { leadHandler } from '../../shared/http/lead-handler.ts';
import { runtimeFromEnvironment } from '../../shared/runtime.ts';

/** POST /api/website-lead-create: website and landing-page forms. */
export const handler = leadHandler(websiteEndpoint, runtimeFromEnvironment());
