import type { AccountDirectory } from '../../domain/account-directory.ts';
import { keyAllowsEndpoint, normaliseOrigin } from '../../domain/api-keys.ts';
import { DryRunNotAllowedError, DryRunsOnlyError, KeyNotAllowedOnEndpointError, OriginNotAllowedError } from '../../domain/errors.ts';
import type { KeyEndpoint } from '../../domain/lead.ts';
import type { KeyScopeDeclaration } from '../../sources/descriptor.ts';
import { andThen, step, type LeadStep } from '../lead-chain.ts';
import { header, type Authenticated, type LeadContext } from '../lambda.ts';
import { apiKeyAccount } from './api-key-account.ts';
import { dryRunRequested } from './submission-options.ts';

/**
 * What the request's key allows (CONTRACT.md section 7), right after the key's 401/404 and before the
 * size check, in the contract's order: its endpoints (403), its browser origins (403), and no dry runs
 * with a browser key (403: a public page must not be an "is this mobile a lead?" oracle); a key limited
 * to dry runs answers 403 to anything else (CONTRACT.md section 19). For a browser
 * key whose origin is allowed, every answer from here on echoes that origin to the page. A source with
 * a key scope of its own (`scoped`) takes only a key limited to that scope alone.
 */
export const keyScope = (endpoint: KeyEndpoint, { scoped = false }: { scoped?: boolean } = {}): LeadStep<LeadContext & Authenticated, object> =>
  step<LeadContext & Authenticated>({
  before: ({ event, context }) => {
    const key = context.account.key;
    if (!keyAllowsEndpoint(key, endpoint, { scoped })) throw new KeyNotAllowedOnEndpointError();
    // A key limited to dry runs (section 19: the canary's) stores nothing, whatever it is sent.
    if (key.dryRunsOnly && !dryRunRequested(event)) throw new DryRunsOnlyError();
    if (!key.origins) return;
    const origin = header(event, 'origin');
    const normalised = origin === undefined ? undefined : normaliseOrigin(origin.trim());
    if (normalised === undefined || !key.origins.includes(normalised)) {
      context.allowOrigin = null;
      throw new OriginNotAllowedError();
    }
    context.allowOrigin = origin ?? null;
    if (dryRunRequested(event)) throw new DryRunNotAllowedError();
  },
  });

/**
 * The key checks of a source whose key is limited to it alone (`scoped-api-key`), from its descriptor's
 * key scope: the key from `x-api-key` or the query parameter it allows (401, 404), then its scope (403).
 */
export const scopedApiKey = (directory: AccountDirectory, scope: KeyScopeDeclaration): LeadStep<LeadContext, Authenticated> => {
  const account = apiKeyAccount(directory, scope.queryParameter === undefined ? {} : { queryParameter: scope.queryParameter });
  return andThen(account, keyScope(scope.name, { scoped: true }));
};
