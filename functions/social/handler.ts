import { socialEndpoint } from '../../shared/endpoints.ts';
import { leadHandler } from '../../shared/http/lead-handler.ts';
import { runtimeFromEnvironment } from '../../shared/runtime.ts';

/** POST /api/social-lead-create: social ad platforms' lead connectors. */
export const handler = leadHandler(socialEndpoint, runtimeFromEnvironment());
