import type { MiddlewareObj } from '@middy/core';
import { keyAllowsEndpoint, normaliseOrigin } from '../../domain/api-keys.ts';
import { DryRunNotAllowedError, KeyNotAllowedOnEndpointError, OriginNotAllowedError } from '../../domain/errors.ts';
import type { KeyEndpoint } from '../../domain/lead.ts';
import { header, type LeadContext, type LeadEvent, type LeadResponse } from '../lambda.ts';
import { dryRunRequested } from './submission-options.ts';

/**
 * What the request's key allows (CONTRACT.md section 7), right after the key's 401/404 and before the
 * size check, in the contract's order: its endpoints (403), its browser origins (403), and no dry runs
 * with a browser key (403: a public page must not be an "is this mobile a lead?" oracle). For a browser
 * key whose origin is allowed, every answer from here on echoes that origin to the page.
 */
export const keyScope = (endpoint: KeyEndpoint): MiddlewareObj<LeadEvent, LeadResponse, Error, LeadContext> => ({
  before: ({ event, context }) => {
    const key = context.account!.key;
    if (!keyAllowsEndpoint(key, endpoint)) throw new KeyNotAllowedOnEndpointError();
    if (!key.origins) return;
    const origin = header(event, 'origin');
    const normalised = origin === undefined ? undefined : normaliseOrigin(origin.trim());
    if (normalised === undefined || !key.origins.includes(normalised)) {
      context.allowOrigin = null;
      throw new OriginNotAllowedError();
    }
    context.allowOrigin = origin!;
    if (dryRunRequested(event)) throw new DryRunNotAllowedError();
  },
});
