import type { AccountDirectory } from '../../domain/account-directory.ts';
import { ApiKeyMissingError } from '../../domain/errors.ts';
import { step, type LeadStep } from '../lead-chain.ts';
import { header, type Authenticated, type LeadContext, type LeadEvent } from '../lambda.ts';

export interface ApiKeyAccountOptions {
  /**
   * A query parameter that may carry the key, for senders that cannot set headers (a scoped key's, as its
   * source's descriptor allows: the call webhook's `key`, CONTRACT.md section 13); the header wins when both are sent.
   */
  readonly queryParameter?: string;
}

/** The first check of every request: the `x-api-key` header (or the query parameter allowed) names the account (401 / 404). */
export const apiKeyAccount = (directory: AccountDirectory, { queryParameter }: ApiKeyAccountOptions = {}): LeadStep<LeadContext, Authenticated> =>
  step<LeadContext, Authenticated>({
    before: async (request) => {
      const fromHeader = header(request.event, 'x-api-key')?.trim();
      const apiKey = fromHeader || (queryParameter === undefined ? undefined : queryValue(request.event, queryParameter)?.trim());
      if (!apiKey) throw new ApiKeyMissingError();
      request.context.account = await directory.authenticate(apiKey);
    },
  });

/** A query parameter's first value, from the raw query string as sent. */
const queryValue = (event: LeadEvent, name: string): string | undefined => new URLSearchParams(event.rawQueryString ?? '').get(name) ?? undefined;
